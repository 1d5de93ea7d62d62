import { describe, expect, it } from 'vitest';
import { LargeSetMemo } from './large-set-memo';

describe('LargeSetMemo', () => {
  it('remembers a large set until its time is up, and never a small one', () => {
    let now = 1_000;
    const memo = new LargeSetMemo(60_000, 10, () => now);
    memo.remember('team-member', true);
    memo.remember('solo', false);
    expect(memo.isLarge('team-member')).toBe(true);
    expect(memo.isLarge('solo')).toBe(false);
    now += 60_000;
    expect(memo.isLarge('team-member')).toBe(false);
  });

  it('forgets a set that was counted small again, and keeps at most maxEntries', () => {
    const memo = new LargeSetMemo(60_000, 2);
    memo.remember('a', true);
    memo.remember('a', false);
    expect(memo.isLarge('a')).toBe(false);
    for (const key of ['b', 'c', 'd']) memo.remember(key, true);
    expect(['b', 'c', 'd'].map((k) => memo.isLarge(k))).toEqual([false, true, true]);
  });

  it('remembers nothing when the time to live is 0', () => {
    const memo = new LargeSetMemo(0);
    memo.remember('a', true);
    expect(memo.isLarge('a')).toBe(false);
  });
});
