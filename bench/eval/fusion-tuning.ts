import { adjacency, fuseLegs, type FusionSettings, type LegHit } from '@app/recall';
import { mean, ndcgAtK, recallAtK, type Judgements } from '../metrics';

export interface TuningQuery {
  readonly id: string;
  readonly text: string;
  /** The question type (single-hop, multi-hop …), when the set labels its questions. */
  readonly type?: string;
}

export interface TuningResult {
  readonly settings: FusionSettings;
  readonly recallAt5: number;
  readonly recallAt10: number;
  readonly ndcgAt10: number;
  /**
   * The smallest margin, over question types, of hybrid recall@10 above the best single leg under
   * the same settings (text with and without thread context, vector with it). Negative: fusion
   * loses to a leg on some type.
   */
  readonly legMargin: number;
}

/**
 * The settings tried on the dev split: linear fusion over text weights (the vector leg gets the
 * rest), text spreads, text coverages, vector floors and thread-context weights, and weighted RRF over the same
 * text weights.
 */
export function fusionGrid(base: FusionSettings): FusionSettings[] {
  const textWeights = [0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8];
  const contextWeights = [0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1];
  const grid: FusionSettings[] = [];
  for (const textWeight of textWeights) {
    for (const contextWeight of contextWeights) {
      const weights = { textWeight, vectorWeight: Number((1 - textWeight).toFixed(2)), contextWeight };
      for (const contextDirection of contextWeight > 0
        ? (['both', 'previous'] as const)
        : (['both'] as const))
        for (const textSpread of [0, 0.3, 0.45, 0.6])
          for (const textCoverage of [0, 0.4, 0.55, 0.7])
            for (const vectorFloor of [0, 0.2, 0.25, 0.3, 0.4])
              grid.push({
                ...base,
                ...weights,
                method: 'linear',
                // Spread 0: the weights as configured, for both legs.
                textSpread,
                vectorSpread: textSpread === 0 ? 0 : base.vectorSpread,
                textCoverage,
                vectorFloor,
                contextDirection,
              });
      grid.push({ ...base, ...weights, method: 'rrf', textSpread: 0, vectorSpread: 0, textCoverage: 0 });
    }
  }
  return grid;
}

/** A short label for a settings row in the report. */
export function describeFusion(s: FusionSettings): string {
  const weights = `text ${s.textWeight}, vector ${s.vectorWeight}, context ${s.contextWeight} from ${s.contextDirection}`;
  return s.method === 'rrf'
    ? `rrf k=${s.rrfK}, ${weights}`
    : `linear, ${weights}, spreads ${s.textSpread} / ${s.vectorSpread}, coverage ${s.textCoverage}, floor ${s.vectorFloor}`;
}

/** What recall's legs return for one query, gathered once and fused under every setting. */
export interface GatheredLegs {
  readonly text: readonly LegHit[];
  readonly vector: readonly LegHit[];
  readonly threads: Parameters<typeof adjacency>[0];
}

/**
 * Runs each dev query's legs once (the same repositories, depth and transaction as recall), then
 * fuses them under every setting of the grid and scores the top 10. Best first: settings where
 * hybrid is at least as good as each leg alone on every question type (recall@10), then by
 * recall@10 + recall@5, then nDCG@10 — fusion must never cost a kind of question what one leg
 * alone would find. Importance, recency and supersession are left out: every memory of the
 * evaluation sets has the same importance and is years old, so they do not reorder it. Only the dev
 * split may be passed: the chosen values are then reported on the test split by the real use case.
 */
export async function tuneFusion(options: {
  gather: (query: TuningQuery) => Promise<GatheredLegs>;
  queries: readonly TuningQuery[];
  qrels: ReadonlyMap<string, Judgements>;
  docsByMemory: ReadonlyMap<number, readonly string[]>;
  grid: readonly FusionSettings[];
}): Promise<TuningResult[]> {
  const gathered = new Map<string, GatheredLegs>();
  for (const query of options.queries) gathered.set(query.id, await options.gather(query));
  const score = (settings: FusionSettings, pick: (legs: GatheredLegs) => GatheredLegs) =>
    scoreSetting({ ...options, gathered }, settings, pick);
  const results = options.grid.map((settings): TuningResult => {
    const hybrid = score(settings, (legs) => legs);
    const singleLegs = [
      score(settings, (legs) => ({ ...legs, vector: [] })),
      score({ ...settings, contextWeight: 0 }, (legs) => ({ ...legs, vector: [] })),
      score(settings, (legs) => ({ ...legs, text: [] })),
    ];
    const legMargin = Math.min(
      ...[...hybrid.byType.entries()].map(
        ([type, recall]) => recall - Math.max(...singleLegs.map((leg) => leg.byType.get(type) ?? 0)),
      ),
    );
    return { settings, ...hybrid.overall, legMargin };
  });
  return rankTuningResults(results);
}

/**
 * Best first: settings never below a single leg on any question type, then by recall@10 +
 * recall@5, then nDCG@10.
 */
export function rankTuningResults(results: readonly TuningResult[]): TuningResult[] {
  const beatsLegs = (r: TuningResult) => (r.legMargin >= -1e-9 ? 1 : 0);
  return [...results].sort(
    (a, b) =>
      beatsLegs(b) - beatsLegs(a) ||
      b.recallAt10 + b.recallAt5 - (a.recallAt10 + a.recallAt5) ||
      b.ndcgAt10 - a.ndcgAt10,
  );
}

/** One setting over the gathered legs (narrowed by `pick`): overall scores and recall@10 per type. */
function scoreSetting(
  options: {
    queries: readonly TuningQuery[];
    qrels: ReadonlyMap<string, Judgements>;
    docsByMemory: ReadonlyMap<number, readonly string[]>;
    gathered: ReadonlyMap<string, GatheredLegs>;
  },
  settings: FusionSettings,
  pick: (legs: GatheredLegs) => GatheredLegs,
): {
  overall: { recallAt5: number; recallAt10: number; ndcgAt10: number };
  byType: Map<string, number>;
} {
  const r5: number[] = [];
  const r10: number[] = [];
  const ndcg: number[] = [];
  const r10ByType = new Map<string, number[]>();
  for (const query of options.queries) {
    const judged = options.qrels.get(query.id) ?? new Map<string, number>();
    const legs = pick(options.gathered.get(query.id) as GatheredLegs);
    const fused = fuseLegs(legs, settings, adjacency(legs.threads, settings.contextDirection)).slice(0, 10);
    const ranked = fused.flatMap((c) => options.docsByMemory.get(c.memoryId) ?? []);
    r5.push(recallAtK(ranked, judged, 5));
    r10.push(recallAtK(ranked, judged, 10));
    ndcg.push(ndcgAtK(ranked, judged, 10));
    const type = query.type ?? 'all';
    r10ByType.set(type, [...(r10ByType.get(type) ?? []), r10[r10.length - 1]]);
  }
  return {
    overall: { recallAt5: mean(r5), recallAt10: mean(r10), ndcgAt10: mean(ndcg) },
    byType: new Map([...r10ByType.entries()].map(([type, values]) => [type, mean(values)])),
  };
}
