import { describe, expect, it } from 'vitest';
import { WriteLedger } from './write-ledger';

describe('WriteLedger', () => {
  it('wants the last acknowledged content, or an unanswered update sent after it', () => {
    const ledger = new WriteLedger();
    ledger.stored('alice', 1, 'v1');
    ledger.updated(1, 'v2', true);
    ledger.updated(1, 'v3', false);
    expect(ledger.judge(1, { content: 'v2', deleted: false }).ok).toBe(true);
    expect(ledger.judge(1, { content: 'v3', deleted: false }).ok).toBe(true);
    expect(ledger.judge(1, { content: 'v1', deleted: false })).toMatchObject({ ok: false });
    ledger.updated(1, 'v4', true);
    expect(ledger.judge(1, { content: 'v3', deleted: false }).ok).toBe(false);
    expect(ledger.get(1)).toMatchObject({ versionsSent: 4, updatesSent: 3, updatesAcknowledged: 2 });
  });

  it('calls an acknowledged memory that is missing or deleted lost', () => {
    const ledger = new WriteLedger();
    ledger.stored('bob', 7, 'only');
    expect(ledger.judge(7, undefined)).toMatchObject({ ok: false, detail: expect.stringContaining('gone') });
    expect(ledger.judge(7, { content: 'only', deleted: true }).ok).toBe(false);
  });

  it('refuses a content sent twice and an id acknowledged twice, which would hide a duplicate', () => {
    const ledger = new WriteLedger();
    ledger.storeUnknown('alice', 'a');
    expect(ledger.wasSent('a')).toBe(true);
    expect(() => ledger.stored('alice', 2, 'a')).toThrow(/sent twice/);
    ledger.stored('alice', 3, 'b');
    expect(() => ledger.stored('alice', 3, 'c')).toThrow(/acknowledged twice/);
  });
});
