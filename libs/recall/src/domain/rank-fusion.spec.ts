import { describe, expect, it } from 'vitest';
import { fuseRankings, importanceFactor, recencyFactor, RRF_K } from './rank-fusion';

describe('reciprocal rank fusion', () => {
  it('ranks a memory found by both legs above memories found by one', () => {
    const fused = fuseRankings({ text: [1, 2, 3], vector: [4, 2, 5] });
    expect(fused[0]).toEqual({ memoryId: 2, textRank: 2, vectorRank: 2, fusedScore: 2 / (RRF_K + 2) });
    expect(fused.map((f) => f.memoryId)).toEqual([2, 1, 4, 3, 5]);
  });

  it('keeps memories that only one leg found (e.g. not embedded yet)', () => {
    const fused = fuseRankings({ text: [7], vector: [] });
    expect(fused).toEqual([{ memoryId: 7, textRank: 1, vectorRank: null, fusedScore: 1 / (RRF_K + 1) }]);
  });

  it('nudges by importance and recency within documented bounds', () => {
    expect(importanceFactor(1)).toBeCloseTo(1.15);
    expect(importanceFactor(0)).toBeCloseTo(0.85);
    expect(importanceFactor(7)).toBeCloseTo(1.15);
    expect(recencyFactor(0)).toBeCloseTo(1.1);
    expect(recencyFactor(30)).toBeCloseTo(1.05);
    expect(recencyFactor(3650)).toBeCloseTo(1.0);
  });
});
