import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FUSION,
  fuseLegs,
  importanceFactor,
  recencyFactor,
  RRF_K,
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
