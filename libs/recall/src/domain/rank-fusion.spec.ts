import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FUSION,
  fuseLegs,
  importanceFactor,
  recencyFactor,
  RRF_K,
  legShare,
  coverageShare,
  fusionWeights,
  legWeights,
  SPREAD_RANK,
  type FusionSettings,
  type LegHit,
} from './rank-fusion';
import { adjacency } from './thread-context';

const hits = (...pairs: [number, number][]): LegHit[] =>
  pairs.map(([memoryId, score]) => ({ memoryId, score }));
const linear: FusionSettings = {
  ...DEFAULT_FUSION,
  method: 'linear',
  textWeight: 0.5,
  vectorWeight: 0.5,
  vectorFloor: 0.2,
};
const ids = (fused: ReturnType<typeof fuseLegs>) => fused.map((f) => f.memoryId);

describe("each leg's weight and how far its best hit stands out", () => {
  // Twelve turns of one speaker found by the name alone: BM25 differs only by their lengths.
  const nameOnly = hits(...Array.from({ length: 12 }, (_, i): [number, number] => [i + 1, 3.3 - i * 0.02]));
  const spread: FusionSettings = {
    ...linear,
    textWeight: 0.6,
    vectorWeight: 0.4,
    vectorFloor: 0.25,
    textSpread: 0.6,
    vectorSpread: 0.3,
  };
  const fixed = { ...spread, textSpread: 0, vectorSpread: 0 };

  it('keeps the whole weight when the best hit leads the 10th by the spread, or the leg has fewer hits', () => {
    const specific = [9, ...Array.from({ length: 11 }, (_, i) => 3 - i * 0.1)];
    expect(legShare(specific, 0.6)).toBe(1);
    expect(legShare([3.3, 3.2], 0.6)).toBe(1);
    expect(
      legShare(
        nameOnly.map((h) => h.score),
        0,
      ),
    ).toBe(1);
  });

  it("shrinks in proportion to the lead over the spread, measured from the leg's floor", () => {
    const tenth = 3.3 - (SPREAD_RANK - 1) * 0.02;
    expect(
      legShare(
        nameOnly.map((h) => h.score),
        0.6,
      ),
    ).toBeCloseTo((3.3 - tenth) / 3.3 / 0.6);
    const cosines = Array.from({ length: 10 }, (_, i) => 0.55 - i * 0.01);
    expect(legShare(cosines, 0.3, 0.25)).toBeCloseTo((0.55 - 0.46) / (0.55 - 0.25) / 0.3);
    // No hit above the floor: nothing to weigh.
    expect(legShare([0.2, 0.1], 0.3, 0.25)).toBe(0);
  });

  it('hands the weight of a text leg that scores its hits alike to a vector leg with a clear best hit', () => {
    // The answer (12) is the speaker's longest turn, last by BM25; the vector leg puts it first.
    const legs = { text: nameOnly, vector: hits([12, 0.5], [1, 0.48]) };
    const weights = legWeights(legs, spread);
    expect(weights.text).toBeLessThan(0.15);
    expect(weights.text + weights.vector).toBeCloseTo(1);
    expect(ids(fuseLegs(legs, spread))[0]).toBe(12);
    // With fixed weights the name match's shortest turns win.
    expect(ids(fuseLegs(legs, fixed))[0]).toBe(1);
  });

  it('keeps the configured weights when both legs stand out, or one has nothing above its floor', () => {
    const clearText = hits(
      [5, 9],
      ...Array.from({ length: 11 }, (_, i): [number, number] => [i + 6, 2 - i * 0.1]),
    );
    const clearVector = hits([7, 0.6], [5, 0.3]);
    expect(legWeights({ text: clearText, vector: clearVector }, spread)).toEqual({ text: 0.6, vector: 0.4 });
    expect(fuseLegs({ text: clearText, vector: clearVector }, spread)).toEqual(
      fuseLegs({ text: clearText, vector: clearVector }, fixed),
    );
    expect(legWeights({ text: nameOnly, vector: hits([3, 0.2]) }, spread)).toEqual({
      text: 0.6,
      vector: 0.4,
    });
    expect(legWeights({ text: nameOnly, vector: [] }, spread)).toEqual({ text: 0.6, vector: 0.4 });
  });

  it('gives a text leg whose hits all score the same nothing beside a vector leg with a clear best hit', () => {
    const same = hits(...Array.from({ length: 10 }, (_, i): [number, number] => [i + 1, 2.5]));
    expect(legWeights({ text: same, vector: hits([11, 0.6]) }, spread)).toEqual({ text: 0, vector: 1 });
  });

  it('gives the flatter of two flat legs less than its configured share, keeping the sum', () => {
    const flatVector = hits(
      ...Array.from({ length: 12 }, (_, i): [number, number] => [i + 1, 0.5 - i * 0.002]),
    );
    const both = legWeights({ text: nameOnly, vector: flatVector }, spread);
    expect(both.text).toBeLessThan(0.6);
    expect(both.text).toBeGreaterThan(0.2);
    expect(both.text + both.vector).toBeCloseTo(1);
  });
});

describe("the text leg's weight and how much of the query its hits hold", () => {
  const clearText = (coverage: number): LegHit[] => [
    { memoryId: 1, score: 9, coverage },
    ...Array.from({ length: 11 }, (_, i): LegHit => ({ memoryId: i + 2, score: 2 - i * 0.1, coverage })),
  ];
  const vector = hits([20, 0.7], [1, 0.3]);
  const covered: FusionSettings = { ...linear, textWeight: 0.6, vectorWeight: 0.4, textCoverage: 0.5 };

  it('keeps the whole weight from the needed coverage on, and that share of it below', () => {
    expect(coverageShare(clearText(0.8), 0.5)).toBe(1);
    expect(coverageShare(clearText(0.25), 0.5)).toBeCloseTo(0.5);
    // The best-covered hit counts, wherever it ranks.
    expect(coverageShare([...clearText(0.1), { memoryId: 40, score: 0.5, coverage: 0.4 }], 0.5)).toBeCloseTo(
      0.8,
    );
    // Off, or no hit knows its coverage: the whole weight.
    expect(coverageShare(clearText(0.1), 0)).toBe(1);
    expect(coverageShare(hits([1, 9]), 0.5)).toBe(1);
  });

  it("hands a thinly covering text leg's weight to the vector leg, and lets its best hit lead", () => {
    const thin = { text: clearText(0.2), vector };
    const weights = legWeights(thin, covered);
    // text 0.6 × 0.4 = 0.24 against 0.4, rescaled to the configured sum.
    expect(weights.text).toBeCloseTo(0.375);
    expect(weights.vector).toBeCloseTo(0.625);
    expect(ids(fuseLegs(thin, covered))[0]).toBe(20);
    // Off, the text leg's clear best hit leads.
    expect(ids(fuseLegs(thin, { ...covered, textCoverage: 0 }))[0]).toBe(1);
    // Covering enough, the configured weights.
    expect(legWeights({ text: clearText(0.6), vector }, covered)).toEqual({ text: 0.6, vector: 0.4 });
  });

  it('reports the weights fused with: as configured for rrf', () => {
    const thin = { text: clearText(0.2), vector };
    expect(fusionWeights(thin, covered)).toEqual(legWeights(thin, covered));
    expect(fusionWeights(thin, { ...covered, method: 'rrf' })).toEqual({ text: 0.6, vector: 0.4 });
  });

  it("carries each hit's coverage into the fused candidate", () => {
    const fused = fuseLegs({ text: clearText(0.3), vector }, covered);
    expect(fused.find((c) => c.memoryId === 1)?.textCoverage).toBeCloseTo(0.3);
    expect(fused.find((c) => c.memoryId === 20)?.textCoverage).toBeNull();
  });
});

describe('linear score fusion', () => {
  it('scales each leg to its best hit and adds the weighted parts', () => {
    const fused = fuseLegs({ text: hits([1, 8], [2, 4]), vector: hits([2, 0.8], [3, 0.5]) }, linear);
    expect(fused.find((f) => f.memoryId === 1)?.fusedScore).toBeCloseTo(0.5);
    // text 4/8 → 0.5, vector (0.8 − 0.2)/(0.8 − 0.2) → 1
    expect(fused.find((f) => f.memoryId === 2)).toMatchObject({
      textRank: 2,
      vectorRank: 1,
      textScore: 4,
      vectorScore: 0.8,
      fusedScore: 0.75,
    });
    expect(fused.find((f) => f.memoryId === 3)?.fusedScore).toBeCloseTo(0.25);
    expect(ids(fused)).toEqual([2, 1, 3]);
  });

  it('lets a confident text hit keep its place when the vector leg has no real match', () => {
    // Every similarity is at or below the floor: the vector leg adds nothing, whatever its order.
    const fused = fuseLegs(
      { text: hits([1, 9], [2, 3], [3, 1]), vector: hits([3, 0.2], [2, 0.15], [4, 0.1]) },
      linear,
    );
    expect(ids(fused)).toEqual([1, 2, 3, 4]);
    expect(fused[3].fusedScore).toBe(0);
  });

  it('does not let a weak vector leg outvote a strong one through rescaling', () => {
    // With min-max over the list, 0.25 would become 1 and tie the text leg's best hit.
    const fused = fuseLegs({ text: hits([1, 10]), vector: hits([2, 0.25]) }, linear);
    expect(ids(fused)).toEqual([1, 2]);
  });

  it('keeps memories only one leg found (e.g. not embedded yet)', () => {
    const fused = fuseLegs({ text: hits([7, 2.5]), vector: [] }, linear);
    expect(fused).toEqual([
      {
        memoryId: 7,
        textRank: 1,
        vectorRank: null,
        textScore: 2.5,
        vectorScore: null,
        textCoverage: null,
        contextFrom: null,
        contextScore: 0,
        fusedScore: 0.5,
      },
    ]);
  });

  it('orders by one leg alone when the other did not run', () => {
    expect(ids(fuseLegs({ text: [], vector: hits([5, 0.9], [4, 0.7], [6, 0.1]) }, linear))).toEqual([
      5, 4, 6,
    ]);
    expect(ids(fuseLegs({ text: hits([9, 3], [8, 2], [7, 2]), vector: [] }, linear))).toEqual([9, 8, 7]);
  });

  it('moves toward the leg with more weight', () => {
    const legs = { text: hits([1, 10], [2, 6]), vector: hits([2, 0.9], [1, 0.5]) };
    expect(ids(fuseLegs(legs, { ...linear, textWeight: 0.8, vectorWeight: 0.2 }))[0]).toBe(1);
    expect(ids(fuseLegs(legs, { ...linear, textWeight: 0.2, vectorWeight: 0.8 }))[0]).toBe(2);
  });
});

describe('thread context', () => {
  const withContext: FusionSettings = { ...linear, textWeight: 1, vectorWeight: 0, contextWeight: 0.4 };
  // 10 → 11 → 12 is one thread; 20 stands alone.
  const adjacent = adjacency([
    { memoryId: 11, previousId: 10, nextId: 12 },
    { memoryId: 20, previousId: null, nextId: null },
  ]);

  it('finds the reply next to the turn that matched, with where its score came from', () => {
    const fused = fuseLegs({ text: hits([11, 10], [20, 6]), vector: [] }, withContext, adjacent);
    expect(ids(fused)).toEqual([11, 20, 10, 12]);
    expect(fused.find((f) => f.memoryId === 12)).toMatchObject({
      textRank: null,
      contextFrom: 11,
      contextScore: 0.4,
      fusedScore: 0.4,
    });
  });

  it('lifts a weak hit whose neighbour matched above an equal hit without one', () => {
    const fused = fuseLegs({ text: hits([20, 10], [12, 3], [30, 3]), vector: [] }, withContext, adjacent);
    // 11 is no hit, but the turn after it is: it becomes a candidate on what it borrows.
    expect(fused.find((f) => f.memoryId === 11)).toMatchObject({ contextFrom: 12 });
    // 12 and 30 score the same; 12's neighbour 11 is a (weak) hit too.
    const lifted = fuseLegs(
      { text: hits([20, 10], [12, 3], [30, 3], [11, 2]), vector: [] },
      withContext,
      adjacent,
    );
    expect(ids(lifted).indexOf(12)).toBeLessThan(ids(lifted).indexOf(30));
  });

  it('lends only forward with direction previous: a reply borrows from its question, not the reverse', () => {
    const forward = adjacency(
      [
        { memoryId: 11, previousId: 10, nextId: 12 },
        { memoryId: 20, previousId: null, nextId: null },
      ],
      'previous',
    );
    const settings = { ...withContext, contextDirection: 'previous' as const };
    const fused = fuseLegs({ text: hits([11, 10], [20, 6]), vector: [] }, settings, forward);
    expect(ids(fused)).toEqual([11, 20, 12]);
    expect(fused.find((f) => f.memoryId === 12)).toMatchObject({ contextFrom: 11, contextScore: 0.4 });
    expect(fused.find((f) => f.memoryId === 11)?.contextFrom).toBeNull();
  });

  it('changes nothing with weight 0', () => {
    const legs = { text: hits([11, 10], [20, 6]), vector: [] };
    const off = fuseLegs(legs, { ...withContext, contextWeight: 0 }, adjacent);
    expect(ids(off)).toEqual([11, 20]);
    expect(off.every((f) => f.contextFrom === null && f.contextScore === 0)).toBe(true);
  });
});

describe('reciprocal rank fusion', () => {
  const rrf: FusionSettings = { ...DEFAULT_FUSION, method: 'rrf', textWeight: 1, vectorWeight: 1 };

  it('ranks a memory found by both legs above memories found by one', () => {
    const fused = fuseLegs(
      { text: hits([1, 3], [2, 2], [3, 1]), vector: hits([4, 0.9], [2, 0.8], [5, 0.7]) },
      rrf,
    );
    expect(fused[0]).toMatchObject({ memoryId: 2, textRank: 2, vectorRank: 2, fusedScore: 2 / (RRF_K + 2) });
    expect(ids(fused)).toEqual([2, 1, 4, 3, 5]);
  });

  it('weights each leg', () => {
    const fused = fuseLegs(
      { text: hits([1, 3]), vector: hits([2, 0.9]) },
      { ...rrf, textWeight: 0.3, vectorWeight: 0.7 },
    );
    expect(ids(fused)).toEqual([2, 1]);
    expect(fused[0].fusedScore).toBeCloseTo(0.7 / (RRF_K + 1));
  });
});

describe('importance and recency', () => {
  it('nudge by importance and recency within documented bounds', () => {
    expect(importanceFactor(1)).toBeCloseTo(1.15);
    expect(importanceFactor(0)).toBeCloseTo(0.85);
    expect(importanceFactor(7)).toBeCloseTo(1.15);
    expect(recencyFactor(0)).toBeCloseTo(1.1);
    expect(recencyFactor(30)).toBeCloseTo(1.05);
    expect(recencyFactor(3650)).toBeCloseTo(1.0);
  });
});
