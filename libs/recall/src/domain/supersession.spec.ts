import { describe, expect, it } from 'vitest';
import type { Memory } from '@app/memories';
import { redirectToHeads, servedPrefixLength } from './supersession';

const memory = (id: number): Memory => ({
  id,
  content: `memory ${id}`,
  category: 'facts',
  tags: [],
  expandedKeywords: '',
  importance: 0.5,
  project: null,
  isSensitive: false,
  visibility: 'team',
  expiresAt: null,
  owner: 'alice',
  sharedBy: null,
  createdAt: '2026-01-01T00:00:00.000000+00:00',
  updatedAt: '2026-01-01T00:00:00.000000+00:00',
  deletedAt: null,
});
const hit = (id: number, rank: number) => ({ memory: memory(id), rank });
const rows = (...ids: number[]) => new Map(ids.map((id) => [id, memory(id)]));

describe('redirecting superseded hits to the head of their chain', () => {
  it('serves the head in the superseded hit’s place, with its rank and where it came from', () => {
    const served = redirectToHeads([hit(1, 0.9), hit(2, 0.5)], new Map([[1, 3]]), rows(1, 2, 3), 10);
    expect(served.map((s) => [s.memory.id, s.rank, s.redirectedFrom])).toEqual([
      [3, 0.9, 1],
      [2, 0.5, undefined],
    ]);
  });

  it('keeps a memory once, at its best place, when the head was a hit too', () => {
    const headFirst = redirectToHeads([hit(3, 0.9), hit(1, 0.5)], new Map([[1, 3]]), rows(1, 3), 10);
    expect(headFirst.map((s) => [s.memory.id, s.redirectedFrom])).toEqual([[3, undefined]]);
    const oldFirst = redirectToHeads(
      [hit(1, 0.9), hit(2, 0.7), hit(3, 0.5)],
      new Map([
        [1, 3],
        [2, 3],
      ]),
      rows(1, 2, 3),
      10,
    );
    expect(oldFirst.map((s) => [s.memory.id, s.redirectedFrom])).toEqual([[3, 1]]);
  });

  it('fills the limit from further hits when redirects fold together, and stops at it', () => {
    const ranked = [hit(1, 0.9), hit(3, 0.8), hit(4, 0.7), hit(5, 0.6)];
    const served = redirectToHeads(ranked, new Map([[1, 3]]), rows(1, 3, 4, 5), 2);
    expect(served.map((s) => s.memory.id)).toEqual([3, 4]);
  });

  it('leaves a hit alone when its head’s row is not at hand', () => {
    const served = redirectToHeads([hit(1, 0.9)], new Map([[1, 9]]), rows(1), 10);
    expect(served.map((s) => [s.memory.id, s.redirectedFrom])).toEqual([[1, undefined]]);
  });

  it('reads only the prefix of the ranking that redirecting goes through', () => {
    const heads = new Map([
      [1, 3],
      [2, 9],
    ]);
    // 1 → 3, 2 → 9, 3 again (folded), 4: four hits serve three memories.
    expect(servedPrefixLength([1, 2, 3, 4, 5], heads, 3)).toBe(4);
    expect(servedPrefixLength([1, 2, 3, 4, 5], new Map(), 3)).toBe(3);
    expect(servedPrefixLength([1, 3], heads, 10)).toBe(2);
    const ranked = [1, 2, 3, 4, 5].map((id) => hit(id, 1 / id));
    const all = redirectToHeads(ranked, heads, rows(1, 2, 3, 4, 5, 9), 3);
    const prefix = ranked.slice(0, servedPrefixLength([1, 2, 3, 4, 5], heads, 3));
    expect(redirectToHeads(prefix, heads, rows(1, 2, 3, 4, 9), 3)).toEqual(all);
  });
});
