import { type Principal } from '@app/tenancy';
import { type RecallInput, type RecallMemoriesUseCase } from '@app/recall';
import {
  meanScores,
  meanScoresBy,
  ndcgAtK,
  percentile,
  recallAtK,
  reciprocalRank,
  type MeanScores,
  type QueryScores,
} from '../metrics';
import type { BeirDataset } from './beir-dataset';

export type RecallMode = 'text' | 'vector' | 'hybrid';

export const MODE_LEGS: Readonly<Record<RecallMode, NonNullable<RecallInput['legs']>>> = {
  text: { text: true, vector: false },
  vector: { text: false, vector: true },
  hybrid: { text: true, vector: true },
};

export interface ModeScores extends MeanScores {
  readonly mode: RecallMode;
  /** Queries with at least one relevant document in the top 10. */
  readonly answered: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** The same means per question type (`metadata.type`), when the set labels its questions. */
  readonly byType: Readonly<Record<string, MeanScores>>;
  /** The set's unanswerable questions and how many got an empty answer; null when it has none. */
  readonly precision: PrecisionScores | null;
  /**
   * Hybrid only: judged-relevant documents in the top 10 of the answerable questions with the
   * relevance floor left out, and how many of them the floor removes.
   */
  readonly floorLoss: { readonly evidence: number; readonly removed: number } | null;
}

export interface PrecisionCount {
  readonly questions: number;
  /** Answered with nothing (REST `memories: []`, MCP "No memories found"). */
  readonly empty: number;
}

export interface PrecisionScores extends PrecisionCount {
  /** Per kind of question (`metadata.kind`). */
  readonly byKind: Readonly<Record<string, PrecisionCount>>;
}

export interface QueryOutcome {
  readonly queryId: string;
  readonly text: string;
  readonly type?: string;
  /** 1-based rank of the first relevant document per mode (null: not in the top 10). */
  readonly firstRelevantRank: Readonly<Record<RecallMode, number | null>>;
  /** In hybrid mode: that document's rank in each leg's candidate list (k = 30), from `explain`. */
  readonly hybridLegRanks: { readonly text: number | null; readonly vector: number | null } | null;
  /** In hybrid mode: results above it that both legs returned (rank fusion favours them over single-leg hits). */
  readonly outrankedByBothLegs: number | null;
  /** In hybrid mode: the best text (BM25) and vector (cosine) score among the results, what a relevance floor sees. */
  readonly hybridTop: TopScores;
  /** In vector-only mode: the cosine of each result, best first (the nearest memories' spread). */
  readonly nearest: readonly number[];
  /** In hybrid mode: the documents of the top 10, best first (what to read when a question misses). */
  readonly hybridTopDocs: readonly string[];
}

export interface TopScores {
  readonly textScore: number | null;
  readonly vectorScore: number | null;
  readonly results: number;
}

/** An unanswerable question's hybrid answer, in the terms of `TopScores`. */
export interface UnanswerableOutcome extends TopScores {
  readonly queryId: string;
  readonly text: string;
  readonly kind?: string;
  /** As `QueryOutcome.nearest`. */
  readonly nearest: readonly number[];
}

function vectorScoresOf(results: Recalled): number[] {
  return results
    .map((r) => r.explanation.vectorScore)
    .filter((v): v is number => v !== null)
    .sort((a, b) => b - a);
}

function topScores(results: Recalled): TopScores {
  const best = (values: (number | null)[]) => {
    const present = values.filter((v): v is number => v !== null);
    return present.length > 0 ? Math.max(...present) : null;
  };
  return {
    textScore: best(results.map((r) => r.explanation.textScore)),
    vectorScore: best(results.map((r) => r.explanation.vectorScore)),
    results: results.length,
  };
}

type Recalled = Awaited<ReturnType<RecallMemoriesUseCase['execute']>>;

interface HybridTrace {
  legRanks: QueryOutcome['hybridLegRanks'];
  outrankedByBothLegs: number | null;
}

/** For hybrid results: how the first relevant memory got its place in the fused list. */
function traceHybrid(results: Recalled, isRelevant: (memoryId: number) => boolean): HybridTrace {
  const index = results.findIndex((r) => isRelevant(r.memory.id));
  if (index < 0) return { legRanks: null, outrankedByBothLegs: null };
  const { textRank, vectorRank } = results[index].explanation;
  const above = results.slice(0, index);
  const both = above.filter(
    (r) => r.explanation.textRank !== null && r.explanation.vectorRank !== null,
  ).length;
  return { legRanks: { text: textRank, vector: vectorRank }, outrankedByBothLegs: both };
}

type EvalOptions = {
  recall: RecallMemoriesUseCase;
  principal: Principal;
  dataset: BeirDataset;
  docsByMemory: ReadonlyMap<number, readonly string[]>;
};

const recallFor = (options: EvalOptions, text: string, mode: RecallMode, relevanceFloor = true) =>
  options.recall.execute(options.principal, {
    context: text,
    expandedQuery: '',
    sortBy: 'relevance',
    limit: 10,
    legs: MODE_LEGS[mode],
    ...(relevanceFloor ? {} : { relevanceFloor: false }),
  });

/** How many of the set's unanswerable questions `mode` answers with nothing, per kind. */
async function precisionOf(
  options: EvalOptions,
  mode: RecallMode,
  record: UnanswerableOutcome[] | undefined,
  nearest: Map<string, number[]>,
): Promise<PrecisionScores | null> {
  const questions = options.dataset.unanswerable;
  if (questions.length === 0) return null;
  const byKind: Record<string, { questions: number; empty: number }> = {};
  let empty = 0;
  for (const question of questions) {
    const results = await recallFor(options, question.text, mode);
    if (mode === 'vector') nearest.set(question.id, vectorScoresOf(results));
    record?.push({
      queryId: question.id,
      text: question.text,
      ...(question.type ? { kind: question.type } : {}),
      ...topScores(results),
      // Vector-only mode runs before hybrid.
      nearest: nearest.get(question.id) ?? [],
    });
    const kind = byKind[question.type ?? 'unlabelled'] ?? { questions: 0, empty: 0 };
    kind.questions += 1;
    if (results.length === 0) {
      kind.empty += 1;
      empty += 1;
    }
    byKind[question.type ?? 'unlabelled'] = kind;
  }
  return { questions: questions.length, empty, byKind };
}

/** The judged-relevant documents of the hybrid top 10 without the floor, and those the floor removes. */
async function floorLossOf(options: EvalOptions): Promise<{ evidence: number; removed: number }> {
  let evidence = 0;
  let removed = 0;
  const relevantIn = (results: Recalled, judged: ReadonlyMap<string, number>) =>
    new Set(
      results
        .flatMap((r) => options.docsByMemory.get(r.memory.id) ?? [])
        .slice(0, 10)
        .filter((id) => (judged.get(id) ?? 0) > 0),
    );
  for (const query of options.dataset.queries) {
    const judged = options.dataset.qrels.get(query.id) ?? new Map<string, number>();
    const without = relevantIn(await recallFor(options, query.text, 'hybrid', false), judged);
    const kept = relevantIn(await recallFor(options, query.text, 'hybrid'), judged);
    evidence += without.size;
    removed += [...without].filter((id) => !kept.has(id)).length;
  }
  return { evidence, removed };
}

/**
 * Runs every query through the real recall use case once per mode and scores the top 10 (MRR is
 * MRR@10: a first relevant document below rank 10 counts 0); then the set's unanswerable questions
 * (precision: the share answered with nothing), and in hybrid mode what the relevance floor removes
 * from the answerable ones' top 10.
 */
export async function evaluateRetrieval(options: {
  recall: RecallMemoriesUseCase;
  principal: Principal;
  dataset: BeirDataset;
  docsByMemory: ReadonlyMap<number, readonly string[]>;
  modes: readonly RecallMode[];
}): Promise<{ scores: ModeScores[]; outcomes: QueryOutcome[]; unanswered: UnanswerableOutcome[] }> {
  const ranks = new Map<string, Record<RecallMode, number | null>>();
  const traces = new Map<string, HybridTrace>();
  const tops = new Map<string, TopScores>();
  const hybridTopDocs = new Map<string, string[]>();
  const unanswered: UnanswerableOutcome[] = [];
  const nearest = new Map<string, number[]>();
  const scores: ModeScores[] = [];
  for (const mode of options.modes) {
    const perQuery: (QueryScores & { type?: string })[] = [];
    const times: number[] = [];
    let answered = 0;
    for (const query of options.dataset.queries) {
      const judged = options.dataset.qrels.get(query.id) ?? new Map<string, number>();
      const started = performance.now();
      const results = await recallFor(options, query.text, mode);
      times.push(performance.now() - started);
      // A memory may stand for several identical documents; each keeps the memory's rank.
      const ranked = results.flatMap((r) => options.docsByMemory.get(r.memory.id) ?? []);
      perQuery.push({
        type: query.type,
        recallAt5: recallAtK(ranked, judged, 5),
        recallAt10: recallAtK(ranked, judged, 10),
        ndcgAt10: ndcgAtK(ranked, judged, 10),
        reciprocalRank: reciprocalRank(ranked, judged, 10),
      });
      const first = ranked.slice(0, 10).findIndex((id) => (judged.get(id) ?? 0) > 0);
      if (mode === 'hybrid') {
        const relevantMemory = (memoryId: number) =>
          (options.docsByMemory.get(memoryId) ?? []).some((id) => (judged.get(id) ?? 0) > 0);
        traces.set(query.id, traceHybrid(results, relevantMemory));
        tops.set(query.id, topScores(results));
        hybridTopDocs.set(query.id, ranked.slice(0, 10));
      }
      if (mode === 'vector') nearest.set(query.id, vectorScoresOf(results));
      if (first >= 0) answered += 1;
      const entry = ranks.get(query.id) ?? { text: null, vector: null, hybrid: null };
      entry[mode] = first >= 0 ? first + 1 : null;
      ranks.set(query.id, entry);
    }
    scores.push({
      mode,
      ...meanScores(perQuery),
      answered,
      p50Ms: percentile(times, 50),
      p95Ms: percentile(times, 95),
      byType: Object.fromEntries(meanScoresBy(perQuery, (q) => q.type)),
      precision: await precisionOf(options, mode, mode === 'hybrid' ? unanswered : undefined, nearest),
      floorLoss: mode === 'hybrid' ? await floorLossOf(options) : null,
    });
  }
  const outcomes = options.dataset.queries.map((q) => ({
    queryId: q.id,
    text: q.text,
    ...(q.type ? { type: q.type } : {}),
    firstRelevantRank: ranks.get(q.id) ?? { text: null, vector: null, hybrid: null },
    hybridLegRanks: traces.get(q.id)?.legRanks ?? null,
    outrankedByBothLegs: traces.get(q.id)?.outrankedByBothLegs ?? null,
    hybridTop: tops.get(q.id) ?? { textScore: null, vectorScore: null, results: 0 },
    nearest: nearest.get(q.id) ?? [],
    hybridTopDocs: hybridTopDocs.get(q.id) ?? [],
  }));
  return { scores, outcomes, unanswered };
}
