/**
 * Retrieval and latency metrics for the benchmark and the evaluation. Pure functions so they can
 * be unit-tested and reused by both runners.
 */

/** Graded relevance judgements for one query: document id → gain (> 0 means relevant). */
export type Judgements = ReadonlyMap<string, number>;

function relevantIds(judgements: Judgements): Set<string> {
  return new Set([...judgements].filter(([, gain]) => gain > 0).map(([id]) => id));
}

/**
 * Fraction of the relevant documents found in the first k results (BEIR's definition: the
 * denominator is all relevant documents, so a query with 3 answers and k = 1 can reach 1/3 only).
 * A query with no relevant documents scores 0; callers skip such queries.
 */
export function recallAtK(ranked: readonly string[], judgements: Judgements, k: number): number {
  const relevant = relevantIds(judgements);
  if (relevant.size === 0 || k <= 0) return 0;
  const found = new Set(ranked.slice(0, k).filter((id) => relevant.has(id)));
  return found.size / relevant.size;
}

/**
 * Normalised discounted cumulative gain with linear gains (as in BEIR / pytrec_eval):
 * DCG = Σ gain_i / log2(i + 1) over the first k results, divided by the DCG of the ideal order.
 * A document repeated in `ranked` counts once, at its first position.
 */
export function ndcgAtK(ranked: readonly string[], judgements: Judgements, k: number): number {
  if (k <= 0) return 0;
  const seen = new Set<string>();
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (seen.has(id)) return;
    seen.add(id);
    dcg += (judgements.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...judgements.values()]
    .filter((gain) => gain > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/**
 * 1 / rank of the first relevant document within the first k (0 when none is there); its mean over
 * queries is MRR. A query with several relevant documents counts only the first one found.
 */
export function reciprocalRank(ranked: readonly string[], judgements: Judgements, k = Infinity): number {
  const index = ranked.slice(0, k).findIndex((id) => (judgements.get(id) ?? 0) > 0);
  return index < 0 ? 0 : 1 / (index + 1);
}

/** One query's retrieval scores. */
export interface QueryScores {
  readonly recallAt5: number;
  readonly recallAt10: number;
  readonly ndcgAt10: number;
  readonly reciprocalRank: number;
}

/** Means of each score over the queries (MRR for reciprocalRank), with how many there were. */
export interface MeanScores extends QueryScores {
  readonly queries: number;
}

export function meanScores(rows: readonly QueryScores[]): MeanScores {
  return {
    queries: rows.length,
    recallAt5: mean(rows.map((r) => r.recallAt5)),
    recallAt10: mean(rows.map((r) => r.recallAt10)),
    ndcgAt10: mean(rows.map((r) => r.ndcgAt10)),
    reciprocalRank: mean(rows.map((r) => r.reciprocalRank)),
  };
}

/**
 * Mean scores per group (e.g. per question type), groups in first-seen order. Rows whose key is
 * undefined belong to no group.
 */
export function meanScoresBy<T extends QueryScores>(
  rows: readonly T[],
  key: (row: T) => string | undefined,
): Map<string, MeanScores> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = key(row);
    if (group === undefined) continue;
    groups.set(group, [...(groups.get(group) ?? []), row]);
  }
  return new Map([...groups].map(([group, members]) => [group, meanScores(members)]));
}

/**
 * Overlap of an approximate top-k with the exact top-k, |approx ∩ exact| / |exact| (the usual ANN
 * "recall@k"). When the exact answer has fewer than k rows, the denominator shrinks with it.
 */
export function overlapAtK(approx: readonly string[], exact: readonly string[], k: number): number {
  const truth = new Set(exact.slice(0, k));
  if (truth.size === 0) return 1;
  return approx.slice(0, k).filter((id) => truth.has(id)).length / truth.size;
}

export interface RankedDistance {
  readonly id: string;
  readonly distance: number;
}

/**
 * ANN recall@k that does not punish ties: an approximate hit counts when the exact answer has it
 * at or within the k-th exact distance (plus `epsilon`). Bag-of-words embeddings give identical
 * vectors to texts with the same words, so several rows can share the k-th distance and any of
 * them is a correct answer. Both lists must come from the same distance expression.
 */
export function tieAwareRecallAtK(
  approx: readonly RankedDistance[],
  exact: readonly RankedDistance[],
  k: number,
  epsilon = 1e-6,
): number {
  const wanted = Math.min(k, exact.length);
  if (wanted === 0) return 1;
  const cutoff = exact[wanted - 1].distance + epsilon;
  const correct = new Set(exact.filter((e) => e.distance <= cutoff).map((e) => e.id));
  const found = new Set(
    approx
      .slice(0, k)
      .filter((a) => correct.has(a.id))
      .map((a) => a.id),
  );
  return Math.min(found.size, wanted) / wanted;
}

/**
 * The p-th percentile (0–100) by linear interpolation between closest ranks (the same rule as
 * numpy's default), so p50 of an even-sized sample is the mean of the two middle values.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const position = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly mean: number;
}

export function summariseLatencies(values: readonly number[]): LatencySummary {
  return {
    count: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    mean: mean(values),
  };
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}
