import type { ContextDirection } from './thread-context';

/** Reciprocal Rank Fusion constant (Cormack et al. 2009): damps the influence of any single leg's top ranks. */
export const RRF_K = 60;

/** One leg's hit: higher score is better (text: BM25; vector: cosine similarity, 1 − distance). */
export interface LegHit {
  readonly memoryId: number;
  readonly score: number;
  /**
   * Text leg: share of the query's weight (each query term's IDF, terms no memory holds included)
   * carried by the terms this memory holds. Absent where unknown (the vector leg).
   */
  readonly coverage?: number;
}

/**
 * How the two legs become one ranking (RECALL_FUSION and friends; chosen on the evaluation's dev
 * split, see docs/performance.md).
 * - `linear`: fused = textWeight × text/max(text) + vectorWeight × (sim − floor)/(max(sim) − floor).
 *   Each leg's scores are scaled to its own best hit; a vector hit below `vectorFloor` counts as no
 *   match, so a leg without a real match (every similarity low) adds nothing and cannot push the
 *   other leg's confident hits out. With `textSpread` and `vectorSpread` each leg's weight follows
 *   how far its best hit stands out (legWeights): a text leg whose hits all score alike matched only
 *   words many memories share (a speaker's name, a project's) and cannot tell them apart, so a
 *   vector leg with a clear best hit gets the weight it gives up.
 * - `rrf`: fused = textWeight / (rrfK + text rank) + vectorWeight / (rrfK + vector rank).
 */
export interface FusionSettings {
  readonly method: 'linear' | 'rrf';
  readonly textWeight: number;
  readonly vectorWeight: number;
  /** Cosine similarity at or below which a vector hit is no evidence (linear only). */
  readonly vectorFloor: number;
  readonly rrfK: number;
  /**
   * `linear`: the lead of the text leg's best hit over its `SPREAD_RANK`th, as a share of the best
   * score, at which the leg keeps its whole weight; less lead, less weight (legWeights;
   * RECALL_TEXT_SPREAD; 0 = always its whole weight).
   */
  readonly textSpread: number;
  /** The same for the vector leg, its lead measured above `vectorFloor` (RECALL_VECTOR_SPREAD). */
  readonly vectorSpread: number;
  /**
   * `linear`: the coverage (LegHit.coverage) the text leg's best-covered hit needs to keep the leg's
   * whole weight; less, and the leg keeps that share of it (coverageShare; RECALL_TEXT_COVERAGE; 0 =
   * off). A text leg whose hits hold only a small part of the query (a speaker's name, one common
   * word) found memories that mention the query's subject, not ones that answer it.
   */
  readonly textCoverage: number;
  /** Share of a thread neighbour's fused score a memory borrows (RECALL_CONTEXT_WEIGHT; 0 = none). */
  readonly contextWeight: number;
  /** Whom a memory borrows from: both thread neighbours, or only the memory before it. */
  readonly contextDirection: ContextDirection;
  /**
   * An owner's memories without a thread tag written within this many minutes of each other form a
   * thread too (RECALL_THREAD_WINDOW_MINUTES; 0, the default = only tagged threads: separate facts
   * stored one by one would lend each other relevance, docs/performance.md).
   */
  readonly threadWindowMinutes: number;
}

export const DEFAULT_FUSION: FusionSettings = {
  method: 'linear',
  textWeight: 0.7,
  vectorWeight: 0.3,
  vectorFloor: 0.25,
  rrfK: RRF_K,
  textSpread: 0.6,
  vectorSpread: 0.3,
  textCoverage: 0,
  contextWeight: 0.5,
  contextDirection: 'previous',
  threadWindowMinutes: 0,
};

export interface FusedCandidate {
  readonly memoryId: number;
  /** 1-based rank in each leg, or null when the leg did not return the memory. */
  readonly textRank: number | null;
  readonly vectorRank: number | null;
  /** Each leg's own score (BM25, cosine similarity), or null when it did not return the memory. */
  readonly textScore: number | null;
  readonly vectorScore: number | null;
  /** Share of the query the memory holds (LegHit.coverage), or null when the text leg did not return it. */
  readonly textCoverage: number | null;
  /** The thread neighbour whose relevance this memory borrowed (see thread-context.ts), if any. */
  readonly contextFrom: number | null;
  /** What it borrowed: contextWeight × that neighbour's own fused score (included in fusedScore). */
  readonly contextScore: number;
  readonly fusedScore: number;
}

/** For each memory, the thread neighbours it may borrow from (see thread-context.ts). */
export type ThreadAdjacency = ReadonlyMap<number, readonly number[]>;

interface LegEntry {
  textRank: number | null;
  vectorRank: number | null;
  textScore: number | null;
  vectorScore: number | null;
  textCoverage: number | null;
}

/**
 * Fuses two ranked hit lists (each best first) into one, best first. Every memory either leg
 * returned is kept (one not embedded yet is still found by text). Each memory adds
 * `contextWeight` × the best own score among its thread neighbours, and a neighbour of a hit that
 * neither leg returned becomes a candidate on that alone. Ties keep the text leg's order, then
 * the vector leg's, then the lower id.
 */
export function fuseLegs(
  legs: { readonly text: readonly LegHit[]; readonly vector: readonly LegHit[] },
  settings: FusionSettings = DEFAULT_FUSION,
  adjacent: ThreadAdjacency = new Map(),
): FusedCandidate[] {
  const byId = new Map<number, LegEntry>();
  const entry = (id: number) => {
    let e = byId.get(id);
    if (!e)
      byId.set(
        id,
        (e = { textRank: null, vectorRank: null, textScore: null, vectorScore: null, textCoverage: null }),
      );
    return e;
  };
  legs.text.forEach((h, i) =>
    Object.assign(entry(h.memoryId), {
      textRank: i + 1,
      textScore: h.score,
      textCoverage: h.coverage ?? null,
    }),
  );
  legs.vector.forEach((h, i) =>
    Object.assign(entry(h.memoryId), { vectorRank: i + 1, vectorScore: h.score }),
  );
  const context = { adjacent, weight: settings.contextWeight };
  // Every memory that may borrow (hits and their neighbours) is a candidate; one with nothing to
  // borrow scores 0 and sorts last.
  if (context.weight > 0) for (const id of adjacent.keys()) entry(id);
  const score = settings.method === 'rrf' ? rrfScorer(settings) : linearScorer(legs, settings);
  const own = new Map([...byId.entries()].map(([id, e]) => [id, score(e)]));
  return [...byId.entries()]
    .map(([memoryId, e]) => {
      const lent = borrowed(memoryId, own, context);
      return { memoryId, ...e, ...lent, fusedScore: (own.get(memoryId) ?? 0) + lent.contextScore };
    })
    .sort(
      (a, b) =>
        b.fusedScore - a.fusedScore ||
        (a.textRank ?? Infinity) - (b.textRank ?? Infinity) ||
        (a.vectorRank ?? Infinity) - (b.vectorRank ?? Infinity) ||
        a.memoryId - b.memoryId,
    );
}

function borrowed(
  memoryId: number,
  own: ReadonlyMap<number, number>,
  context: { adjacent: ThreadAdjacency; weight: number },
): { contextFrom: number | null; contextScore: number } {
  let best: { contextFrom: number | null; contextScore: number } = { contextFrom: null, contextScore: 0 };
  if (context.weight <= 0) return best;
  for (const n of context.adjacent.get(memoryId) ?? []) {
    const lent = context.weight * (own.get(n) ?? 0);
    if (
      lent > best.contextScore ||
      (lent === best.contextScore && lent > 0 && n < (best.contextFrom ?? Infinity))
    )
      best = { contextFrom: n, contextScore: lent };
  }
  return best;
}

function rrfScorer(s: FusionSettings): (e: LegEntry) => number {
  return (e) =>
    (e.textRank ? s.textWeight / (s.rrfK + e.textRank) : 0) +
    (e.vectorRank ? s.vectorWeight / (s.rrfK + e.vectorRank) : 0);
}

/** The hit each leg's best one is compared with (fewer hits: the missing score at the leg's floor). */
export const SPREAD_RANK = 10;

/**
 * How far a leg's best hit stands out, as a share of the weight it keeps (0–1): its lead over the
 * `SPREAD_RANK`th hit, measured from the leg's floor (0 for BM25, `vectorFloor` for cosine) as a
 * share of the best score, over `spread`, capped at 1. A leg whose hits all score alike (a name that
 * every turn of one speaker carries) keeps little; `spread` 0 keeps the whole weight.
 */
export function legShare(scores: readonly number[], spread: number, floor = 0): number {
  if (spread <= 0) return 1;
  const sorted = [...scores].sort((a, b) => b - a);
  const best = sorted[0] ?? floor;
  if (best <= floor) return 0;
  const kth = sorted.length >= SPREAD_RANK ? Math.max(floor, sorted[SPREAD_RANK - 1]) : floor;
  return Math.min(1, (best - kth) / (best - floor) / spread);
}

/**
 * How much of the query the text leg's best-covered hit holds, as a share of the weight the leg
 * keeps (0–1): that coverage over `needed`, capped at 1. 1 when `needed` is 0 or no hit knows its
 * coverage.
 */
export function coverageShare(hits: readonly LegHit[], needed: number): number {
  if (needed <= 0) return 1;
  let best: number | null = null;
  for (const h of hits) if (h.coverage !== undefined) best = Math.max(best ?? 0, h.coverage);
  return best === null ? 1 : Math.min(1, best / needed);
}

/**
 * The two legs' weights for these hits: each configured weight times its leg's share (legShare, and
 * for the text leg coverageShare),
 * rescaled to the configured total, so a leg that cannot tell its hits apart hands its weight to
 * one that can. When a leg has no hit above its floor, the configured weights.
 */
export function legWeights(
  legs: { readonly text: readonly LegHit[]; readonly vector: readonly LegHit[] },
  s: FusionSettings,
): { text: number; vector: number } {
  const configured = { text: s.textWeight, vector: s.vectorWeight };
  // A leg with nothing above its floor adds nothing: the other keeps its configured weight.
  if (!legs.text.some((h) => h.score > 0) || !legs.vector.some((h) => h.score > s.vectorFloor))
    return configured;
  const text =
    s.textWeight *
    legShare(
      legs.text.map((h) => h.score),
      s.textSpread,
    ) *
    coverageShare(legs.text, s.textCoverage);
  const vector =
    s.vectorWeight *
    legShare(
      legs.vector.map((h) => h.score),
      s.vectorSpread,
      s.vectorFloor,
    );
  if (text + vector <= 0) return configured;
  const total = s.textWeight + s.vectorWeight;
  return { text: (text * total) / (text + vector), vector: (vector * total) / (text + vector) };
}

/** The weights each leg's scores were fused with for these hits: legWeights for `linear`, as configured for `rrf`. */
export function fusionWeights(
  legs: { readonly text: readonly LegHit[]; readonly vector: readonly LegHit[] },
  s: FusionSettings,
): { text: number; vector: number } {
  return s.method === 'rrf' ? { text: s.textWeight, vector: s.vectorWeight } : legWeights(legs, s);
}

function linearScorer(
  legs: { readonly text: readonly LegHit[]; readonly vector: readonly LegHit[] },
  s: FusionSettings,
): (e: LegEntry) => number {
  const textTop = Math.max(0, ...legs.text.map((h) => h.score));
  const vectorTop = Math.max(s.vectorFloor, ...legs.vector.map((h) => h.score));
  const text = (x: number | null) => (x === null || textTop <= 0 ? 0 : Math.max(0, x) / textTop);
  const vector = (x: number | null) =>
    x === null || vectorTop <= s.vectorFloor
      ? 0
      : Math.max(0, x - s.vectorFloor) / (vectorTop - s.vectorFloor);
  const weights = legWeights(legs, s);
  return (e) => weights.text * text(e.textScore) + weights.vector * vector(e.vectorScore);
}

/**
 * Importance and recency nudge relevance without overriding it:
 *   importance factor = 1 + 0.3 × (importance − 0.5)        → 0.85 … 1.15
 *   recency factor    = 1 + 0.1 × 2^(−age_days / 30)         → 1.10 for new, 1.05 at 30 days, → 1.00
 */
export function importanceFactor(importance: number): number {
  return 1 + 0.3 * (Math.min(1, Math.max(0, importance)) - 0.5);
}

export function recencyFactor(ageDays: number): number {
  return 1 + 0.1 * Math.pow(2, -Math.max(0, ageDays) / 30);
}
