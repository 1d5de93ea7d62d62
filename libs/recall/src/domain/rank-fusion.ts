/** Reciprocal Rank Fusion constant (Cormack et al. 2009): damps the influence of any single leg's top ranks. */
export const RRF_K = 60;

export interface FusedCandidate {
  readonly memoryId: number;
  /** 1-based rank in each leg, or null when the leg did not return the memory. */
  readonly textRank: number | null;
  readonly vectorRank: number | null;
  readonly fusedScore: number;
}

/** Fuses ranked id lists: score = Σ 1 / (k + rank). Ties keep the text leg's order, then id. */
export function fuseRankings(
  legs: { text: readonly number[]; vector: readonly number[] },
  k = RRF_K,
): FusedCandidate[] {
  const byId = new Map<number, { textRank: number | null; vectorRank: number | null }>();
  legs.text.forEach((id, i) => byId.set(id, { textRank: i + 1, vectorRank: null }));
  legs.vector.forEach((id, i) => {
    const entry = byId.get(id);
    if (entry) entry.vectorRank = i + 1;
    else byId.set(id, { textRank: null, vectorRank: i + 1 });
  });
  return [...byId.entries()]
    .map(([memoryId, r]) => ({
      memoryId,
      ...r,
      fusedScore: (r.textRank ? 1 / (k + r.textRank) : 0) + (r.vectorRank ? 1 / (k + r.vectorRank) : 0),
    }))
    .sort(
      (a, b) =>
        b.fusedScore - a.fusedScore ||
        (a.textRank ?? Infinity) - (b.textRank ?? Infinity) ||
        a.memoryId - b.memoryId,
    );
}

/**
 * Importance and recency nudge relevance without overriding it:
 *   importance factor = 1 + 0.3 × (importance − 0.5)        → 0.85 … 1.15
 *   recency factor    = 1 + 0.1 × 2^(−age_days / 30)         → 1.10 for new, 1.05 at 30 days, → 1.00
 * Two memories one RRF rank apart (≈1.6% at the top) can swap when one is much more important.
 */
export function importanceFactor(importance: number): number {
  return 1 + 0.3 * (Math.min(1, Math.max(0, importance)) - 0.5);
}

export function recencyFactor(ageDays: number): number {
  return 1 + 0.1 * Math.pow(2, -Math.max(0, ageDays) / 30);
}
