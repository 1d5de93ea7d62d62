import { describe, expect, it } from 'vitest';
import { generateMemories, generateQueries } from './memory-generator';

describe('generateMemories', () => {
  it('is deterministic for a seed', () => {
    const a = [...generateMemories({ count: 50, users: 5, seed: 1 })];
    const b = [...generateMemories({ count: 50, users: 5, seed: 1 })];
    expect(a).toEqual(b);
    expect([...generateMemories({ count: 50, users: 5, seed: 2 })]).not.toEqual(a);
  });

  it('spreads memories evenly over users, with content unique per user (the duplicate rule)', () => {
    const memories = [...generateMemories({ count: 5000, users: 10, seed: 3 })];
    const perUser = new Map<number, Set<string>>();
    for (const m of memories) perUser.set(m.owner, (perUser.get(m.owner) ?? new Set()).add(m.content));
    expect([...perUser.values()].map((s) => s.size)).toEqual(Array(10).fill(500));
  });

  it('produces store-shaped memories', () => {
    for (const m of generateMemories({ count: 200, users: 2, seed: 4 })) {
      expect(m.content.length).toBeGreaterThan(20);
      expect(m.category).toMatch(/^[a-z0-9][a-z0-9_.-]{0,63}$/);
      expect(m.importance).toBeGreaterThanOrEqual(0);
      expect(m.importance).toBeLessThanOrEqual(1);
      expect(m.tags.every((t) => t.length > 0 && !t.includes(','))).toBe(true);
    }
  });
});

describe('generateQueries', () => {
  it('returns distinct texts and skips excluded ones', () => {
    const first = generateQueries({ count: 100, users: 10, seed: 5 });
    expect(new Set(first.map((q) => q.text)).size).toBe(100);
    const exclude = new Set(first.map((q) => q.text));
    const second = generateQueries({ count: 100, users: 10, seed: 5, exclude });
    expect(second.some((q) => exclude.has(q.text))).toBe(false);
  });
});
