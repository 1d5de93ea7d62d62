import { describe, expect, it } from 'vitest';
import {
  mean,
  meanScores,
  meanScoresBy,
  ndcgAtK,
  overlapAtK,
  percentile,
  recallAtK,
  reciprocalRank,
  summariseLatencies,
  tieAwareRecallAtK,
} from './metrics';

const judged = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('recallAtK', () => {
  it('divides the relevant documents found in the top k by all relevant documents', () => {
    const qrels = judged({ a: 1, b: 1, c: 1, z: 0 });
    expect(recallAtK(['a', 'x', 'b', 'c'], qrels, 2)).toBeCloseTo(1 / 3);
    expect(recallAtK(['a', 'x', 'b', 'c'], qrels, 4)).toBe(1);
  });

  it('ignores zero-gain judgements and duplicates in the ranking', () => {
    expect(recallAtK(['z', 'a', 'a'], judged({ a: 2, z: 0 }), 3)).toBe(1);
  });

  it('scores 0 when nothing is relevant or k is not positive', () => {
    expect(recallAtK(['a'], judged({ a: 0 }), 10)).toBe(0);
    expect(recallAtK(['a'], judged({ a: 1 }), 0)).toBe(0);
  });
});

describe('ndcgAtK', () => {
  it('is 1 for the ideal order and less for a worse one', () => {
    const qrels = judged({ a: 2, b: 1 });
    expect(ndcgAtK(['a', 'b', 'x'], qrels, 10)).toBe(1);
    expect(ndcgAtK(['b', 'a'], qrels, 10)).toBeLessThan(1);
  });

  it('uses linear gains with a log2 discount (pytrec_eval convention)', () => {
    // One relevant document at rank 2: DCG = 1/log2(3), ideal = 1/log2(2) = 1.
    expect(ndcgAtK(['x', 'a'], judged({ a: 1 }), 10)).toBeCloseTo(1 / Math.log2(3));
    // Graded: ranking [b(1), a(3)] vs ideal [a(3), b(1)].
    const dcg = 1 + 3 / Math.log2(3);
    const ideal = 3 + 1 / Math.log2(3);
    expect(ndcgAtK(['b', 'a'], judged({ a: 3, b: 1 }), 10)).toBeCloseTo(dcg / ideal);
  });

  it('cuts both the ranking and the ideal at k', () => {
    // Three relevant, k = 1: finding any one of them at rank 1 is ideal.
    expect(ndcgAtK(['c'], judged({ a: 1, b: 1, c: 1 }), 1)).toBe(1);
    expect(ndcgAtK(['x', 'a'], judged({ a: 1 }), 1)).toBe(0);
  });

  it('counts a repeated document once', () => {
    expect(ndcgAtK(['a', 'a'], judged({ a: 1, b: 1 }), 2)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)));
  });

  it('scores 0 without relevant documents', () => {
    expect(ndcgAtK(['a'], judged({}), 10)).toBe(0);
  });
});

describe('reciprocalRank', () => {
  it('is one over the rank of the first relevant document', () => {
    const qrels = judged({ a: 1, b: 2, z: 0 });
    expect(reciprocalRank(['a', 'b'], qrels)).toBe(1);
    expect(reciprocalRank(['z', 'x', 'b', 'a'], qrels)).toBeCloseTo(1 / 3);
  });

  it('scores 0 when the first relevant document lies beyond k or is missing', () => {
    const qrels = judged({ a: 1 });
    expect(reciprocalRank(['x', 'y', 'a'], qrels, 2)).toBe(0);
    expect(reciprocalRank(['x'], qrels)).toBe(0);
    expect(reciprocalRank(['z'], judged({ z: 0 }))).toBe(0);
  });
});

describe('meanScores and meanScoresBy', () => {
  const row = (type: string | undefined, recallAt10: number, reciprocalRank: number) => ({
    type,
    recallAt5: recallAt10 / 2,
    recallAt10,
    ndcgAt10: recallAt10,
    reciprocalRank,
  });
  const rows = [
    row('temporal', 1, 1),
    row('multi-hop', 0.5, 0.5),
    row('temporal', 0, 0),
    row(undefined, 1, 1),
  ];

  it('averages every score over all queries: the mean reciprocal rank is MRR', () => {
    expect(meanScores(rows)).toEqual({
      queries: 4,
      recallAt5: 0.3125,
      recallAt10: 0.625,
      ndcgAt10: 0.625,
      reciprocalRank: 0.625,
    });
  });

  it('averages per group in first-seen order and leaves unlabelled queries out of every group', () => {
    const byType = meanScoresBy(rows, (r) => r.type);
    expect([...byType.keys()]).toEqual(['temporal', 'multi-hop']);
    expect(byType.get('temporal')).toEqual({
      queries: 2,
      recallAt5: 0.25,
      recallAt10: 0.5,
      ndcgAt10: 0.5,
      reciprocalRank: 0.5,
    });
    expect(byType.get('multi-hop')?.queries).toBe(1);
  });
});

describe('overlapAtK', () => {
  it('measures how much of the exact top k the approximate answer found', () => {
    expect(overlapAtK(['a', 'b', 'x'], ['a', 'b', 'c'], 3)).toBeCloseTo(2 / 3);
    expect(overlapAtK(['b', 'a'], ['a', 'b'], 10)).toBe(1);
  });

  it('is 1 when the exact answer is empty', () => {
    expect(overlapAtK([], [], 10)).toBe(1);
  });
});

describe('tieAwareRecallAtK', () => {
  const d = (id: string, distance: number) => ({ id, distance });

  it('counts approximate hits that lie within the k-th exact distance', () => {
    const exact = [d('a', 0.1), d('b', 0.2), d('c', 0.3), d('x', 0.4)];
    expect(tieAwareRecallAtK([d('a', 0.1), d('c', 0.3), d('x', 0.4)], exact, 3)).toBeCloseTo(2 / 3);
  });

  it('accepts any of several rows tied at the k-th distance', () => {
    const exact = [d('a', 0.1), d('b', 0.2), d('c', 0.2)];
    expect(tieAwareRecallAtK([d('a', 0.1), d('c', 0.2)], exact, 2)).toBe(1);
  });

  it('shrinks k to the number of exact rows and never exceeds 1', () => {
    expect(tieAwareRecallAtK([d('a', 0.1), d('b', 0.1), d('c', 0.1)], [d('a', 0.1)], 10)).toBe(1);
    expect(tieAwareRecallAtK([], [], 10)).toBe(1);
    expect(tieAwareRecallAtK([], [d('a', 0.1)], 10)).toBe(0);
  });
});

describe('percentile', () => {
  it('interpolates linearly between closest ranks', () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(2.5);
    expect(percentile([1, 2, 3, 4, 5], 0)).toBe(1);
    expect(percentile([1, 2, 3, 4, 5], 100)).toBe(5);
    expect(percentile([10, 20], 95)).toBeCloseTo(19.5);
  });

  it('answers NaN for no samples and refuses out-of-range percentiles', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('summariseLatencies', () => {
  it('reports count, mean and the three percentiles', () => {
    const values = Array.from({ length: 101 }, (_, i) => i);
    expect(summariseLatencies(values)).toEqual({ count: 101, p50: 50, p95: 95, p99: 99, mean: 50 });
    expect(mean([])).toBeNaN();
  });
});
