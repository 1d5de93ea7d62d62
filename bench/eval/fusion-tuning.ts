import { type Principal } from '@app/tenancy';
import { type FusionSettings, type RecallMemoriesUseCase } from '@app/recall';
import { mean, ndcgAtK, recallAtK, type Judgements } from '../metrics';

export interface TuningQuery {
  readonly id: string;
  readonly text: string;
}

export interface TuningResult {
  readonly settings: FusionSettings;
  readonly recallAt5: number;
  readonly recallAt10: number;
  readonly ndcgAt10: number;
}

/**
 * The settings tried on the dev split: linear fusion over text weights (the vector leg gets the
 * rest), vector floors and thread-context weights, and weighted RRF over the same text weights.
 */
export function fusionGrid(base: FusionSettings): FusionSettings[] {
  const textWeights = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
  const contextWeights = [0, 0.2, 0.35, 0.5];
  const grid: FusionSettings[] = [];
  for (const textWeight of textWeights) {
    for (const contextWeight of contextWeights) {
      const weights = { textWeight, vectorWeight: Number((1 - textWeight).toFixed(2)), contextWeight };
      for (const vectorFloor of [0, 0.2, 0.3, 0.4, 0.5])
        grid.push({ ...base, ...weights, method: 'linear', vectorFloor });
      grid.push({ ...base, ...weights, method: 'rrf' });
    }
  }
  return grid;
}

/** A short label for a settings row in the report. */
export function describeFusion(s: FusionSettings): string {
  const weights = `text ${s.textWeight}, vector ${s.vectorWeight}, context ${s.contextWeight}`;
  return s.method === 'rrf' ? `rrf k=${s.rrfK}, ${weights}` : `linear, ${weights}, floor ${s.vectorFloor}`;
}

/**
 * Runs every dev query through the real recall use case (hybrid) once per setting and scores the
 * top 10; best first (recall@10, then recall@5, then nDCG@10). Only the dev split may be passed:
 * the chosen values are then reported on the test split.
 */
export async function tuneFusion(options: {
  recall: RecallMemoriesUseCase;
  principal: Principal;
  queries: readonly TuningQuery[];
  qrels: ReadonlyMap<string, Judgements>;
  docsByMemory: ReadonlyMap<number, readonly string[]>;
  grid: readonly FusionSettings[];
  log: (line: string) => void;
}): Promise<TuningResult[]> {
  const results: TuningResult[] = [];
  for (const [i, settings] of options.grid.entries()) {
    const r5: number[] = [];
    const r10: number[] = [];
    const ndcg: number[] = [];
    for (const query of options.queries) {
      const judged = options.qrels.get(query.id) ?? new Map<string, number>();
      const found = await options.recall.execute(options.principal, {
        context: query.text,
        expandedQuery: '',
        sortBy: 'relevance',
        limit: 10,
        fusion: settings,
      });
      const ranked = found.flatMap((r) => options.docsByMemory.get(r.memory.id) ?? []);
      r5.push(recallAtK(ranked, judged, 5));
      r10.push(recallAtK(ranked, judged, 10));
      ndcg.push(ndcgAtK(ranked, judged, 10));
    }
    results.push({ settings, recallAt5: mean(r5), recallAt10: mean(r10), ndcgAt10: mean(ndcg) });
    if ((i + 1) % 20 === 0) options.log(`fusion tuning: ${i + 1} / ${options.grid.length} settings`);
  }
  return results.sort(
    (a, b) => b.recallAt10 - a.recallAt10 || b.recallAt5 - a.recallAt5 || b.ndcgAt10 - a.ndcgAt10,
  );
}
