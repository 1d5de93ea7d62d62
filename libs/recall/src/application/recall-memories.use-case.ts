import { Inject, Injectable, Optional } from '@nestjs/common';
import { TransactionRunner, type Tx } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { type Memory, type TreeFacts } from '@app/memories';
import { rankByCode, servedOnBranch } from '../domain/code-staleness';
import {
  RecallCandidateRepository,
  type RankingFacts,
  type RecallCandidates,
} from '../adapters/recall-candidate.repository';
import { TextLeg, type TextLegSource, type VectorLegSource } from './text-leg';
import { adjacency } from '../domain/thread-context';
import { RecallLinks, type LinkedItem } from './recall-links';
import { describeRecallFilter, type RecallFilter } from '../domain/recall-filter';
import {
  DEFAULT_FLOOR_SETTINGS,
  floorVerdict,
  meaningFloor,
  thinMeaningFloor,
  queryEvidence,
  unmatchedVectorFloor,
  type FloorVerdict,
  type QueryEvidence,
  type QueryWord,
} from '../domain/relevance-floor';
import { LexiconSource } from '../adapters/lexicon-source';
import {
  DEFAULT_FUSION,
  fuseLegs,
  fusionWeights,
  importanceFactor,
  recencyFactor,
  type FusedCandidate,
  type FusionSettings,
} from '../domain/rank-fusion';
import { VECTOR_RECALL, type VectorHit, type VectorRecall } from '../ports/vector-recall.port';

export type RecallSort = 'relevance' | 'importance' | 'recency';

export interface RecallInput extends RecallFilter {
  readonly context: string;
  readonly expandedQuery: string;
  readonly sortBy: RecallSort;
  readonly limit: number;
  /** Which legs run (both by default); the evaluation measures each alone. */
  readonly legs?: { readonly text: boolean; readonly vector: boolean };
  /** Serve superseded hits as they are instead of the newest version (history). */
  readonly includeSuperseded?: boolean;
  /** A project whose memories rank first (their score × `RecallOptions.projectBoost`); others stay. */
  readonly projectBoost?: string;
  /** Evaluation only (never from a request): fusion settings other than the configured ones. */
  readonly fusion?: FusionSettings;
  /** Evaluation only (never from a request): false leaves out the relevance floor, to measure what it removes. */
  readonly relevanceFloor?: boolean;
  /** The caller's working tree: anchors on files it changed read as stale for this answer. */
  readonly tree?: TreeFacts;
}

/** Ranking knobs from configuration. */
export interface RecallOptions {
  /** Factor on the score of memories of the boosted project (RECALL_PROJECT_BOOST). */
  readonly projectBoost: number;
  /** How the text and vector legs are fused (RECALL_FUSION, RECALL_*_WEIGHT, …). */
  readonly fusion: FusionSettings;
  /** RECALL_UNMATCHED_VECTOR_FLOOR (see relevance-floor.ts); undefined: the model's own. */
  readonly unmatchedVectorFloor?: number;
  /** The relevance floor's rules (see `floorVerdict`); meaning floors undefined: the model's own. */
  readonly floor?: {
    readonly coverage: number;
    readonly unknownShare: number;
    readonly meaning?: number;
    readonly thinCoverage?: number;
    readonly thinMeaning?: number;
  };
}
export const RECALL_OPTIONS = Symbol('RECALL_OPTIONS');
export const DEFAULT_RECALL_OPTIONS: RecallOptions = { projectBoost: 1.5, fusion: DEFAULT_FUSION };

export interface RecallExplanation {
  readonly textRank: number | null;
  readonly vectorRank: number | null;
  /** The text leg's BM25 score and the vector leg's cosine similarity (null: not returned by it). */
  readonly textScore: number | null;
  readonly vectorScore: number | null;
  /** Share of the query's weight (its terms' IDF) this memory's terms hold; null when the text leg did not return it. */
  readonly textCoverage: number | null;
  /** The weights the legs were fused with in this recall (RECALL_TEXT_SPREAD, RECALL_TEXT_COVERAGE …). */
  readonly legWeights: { readonly text: number; readonly vector: number };
  /** The thread neighbour whose relevance this memory borrowed, and how much (in fusedScore). */
  readonly contextFrom: number | null;
  readonly contextScore: number;
  readonly fusedScore: number;
  readonly importanceFactor: number;
  readonly recencyFactor: number;
  /** `RecallOptions.projectBoost` for a memory of the boosted project, else 1. */
  readonly projectFactor: number;
  /** STALE_CODE_FACTOR when the code it is anchored to changed since (or is gone), else 1. */
  readonly codeFactor: number;
  readonly filters: string[];
  readonly model: string | null;
  /** Where the text leg ran: `index` (this process's in-memory index) or `sql:<why>` (Postgres). */
  readonly textSource: TextLegSource | null;
  /** Where the vector leg ran: `index` (this process's vector index) or `sql:<why>` (Postgres); null: no vector leg. */
  readonly vectorSource: VectorLegSource | null;
  /** Why it is in the answer: a query word matched it, it is close in meaning, both, or a neighbour of such a hit. */
  readonly evidence: RecallEvidence;
  /** The similarity a memory found by meaning alone needed (no query word matched anything), else null. */
  readonly vectorFloor: number | null;
  /** Why the recall answered (the same for every hit of one recall). */
  readonly relevance: RecallRelevance;
}

export type RecallEvidence = 'text' | 'vector' | 'text+vector' | 'context';

/**
 * Why the recall answered at all (the relevance floor, `floorVerdict`): its query's words were
 * found in the caller's memories (`coverage`), a memory was close in meaning (`meaning`), the query
 * has no content word, or the floor could not judge (`unavailable`: the text leg ran in Postgres;
 * `uncalibrated`: the model has no meaning floor; `off`: not asked for).
 */
export interface RecallRelevance {
  readonly passed: Extract<FloorVerdict, { answer: true }>['passed'] | 'unavailable' | 'off';
  /** Share of the query's topical words some readable memory holds (null: not judged). */
  readonly coverage: number | null;
  /** Share held by words no readable memory has and the language does not know. */
  readonly unknownShare: number | null;
}

interface RankedCandidate {
  readonly memoryId: number;
  readonly rank: number;
  readonly explanation: RecallExplanation;
}

export interface RecalledMemory extends LinkedItem {
  readonly memory: Memory;
  readonly rank: number;
  readonly explanation: RecallExplanation;
}

const DAY_MS = 86_400_000;

/**
 * Hybrid recall: text and vector legs over the caller's visible memories, fused by score (see
 * `fuseLegs`), nudged by importance and recency, and lifted for the boosted project. Memories not
 * embedded yet are still found by the text leg. A superseded hit is served as the newest version of it (see
 * RecallLinks).
 */
@Injectable()
export class RecallMemoriesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly textLeg: TextLeg,
    @Inject(VECTOR_RECALL) private readonly vectors: VectorRecall,
    private readonly candidates: RecallCandidateRepository,
    private readonly links: RecallLinks,
    @Optional() @Inject(RECALL_OPTIONS) private readonly options: RecallOptions = DEFAULT_RECALL_OPTIONS,
    @Optional() private readonly lexicon?: LexiconSource,
  ) {}

  async execute(principal: Principal, input: RecallInput, now = new Date()): Promise<RecalledMemory[]> {
    const served = (await this.recall(principal, input, now)).filter((item) =>
      servedOnBranch(item.memory, input.tree),
    );
    // What the code says now ranks a memory about changed code down (code-staleness.ts).
    return rankByCode(served, {
      tree: input.tree,
      at: now.toISOString(),
      byRelevance: input.sortBy === 'relevance',
    }).map(({ item, codeFactor }) =>
      codeFactor === 1 ? item : { ...item, explanation: { ...item.explanation, codeFactor } },
    );
  }

  private async recall(principal: Principal, input: RecallInput, now: Date): Promise<RecalledMemory[]> {
    // A branch memory is served on its branch only; off it, what it supersedes is served instead.
    const servable = (memory: Memory) => servedOnBranch(memory, input.tree);
    // The ranked candidates' rows (and links), the transaction's last read: its commit goes with it.
    const serve = (tx: Tx, candidates: RecallCandidates) =>
      this.links.serve(
        principal,
        tx,
        rank(candidates),
        candidates.heads,
        input.limit,
        { last: true },
        servable,
      );
    const text = `${input.context} ${input.expandedQuery}`.trim();
    const filter: RecallFilter = {
      category: input.category,
      tags: input.tags,
      project: input.project,
      since: input.since,
      before: input.before,
    };
    // Each leg looks deeper than the answer so fusion has overlap to work with.
    const k = Math.max(input.limit * 3, 30);
    const legs = input.legs ?? { text: true, vector: true };
    const query = legs.vector ? await this.vectors.prepare(text) : null;
    const filters = describeRecallFilter(filter);
    const fusion = input.fusion ?? this.options.fusion;
    const threads = fusion.contextWeight > 0;
    const implicitWindowMs = threads ? fusion.threadWindowMinutes * 60_000 : 0;
    let hitIds: number[] = [];
    let rank: (candidates: RecallCandidates) => RankedCandidate[] = () => [];
    // Generic plans: every statement here is driven by ids and the caller's settings (the HNSW
    // statement writes its model and tenant in, so its one plan matches their partial indexes; the
    // SQL text leg's function plans its branches per call), and planning them costs more than
    // running them.
    const outcome = await this.tx.inTenant(
      principal,
      async (tx) => {
        const local =
          legs.text || query
            ? await this.textLeg.search(principal, tx, { text, k, filter, query, withText: legs.text })
            : null;
        const textLeg = legs.text ? local : null;
        const textHits = textLeg?.hits ?? [];
        let vectorSource: VectorLegSource | null = null;
        let nearest: VectorHit[] = [];
        if (query) {
          const served = local?.vector;
          if (served && 'hits' in served) {
            nearest = served.hits;
            vectorSource = 'index';
          } else {
            nearest = await this.vectors.search(principal, tx, query, { k, filter });
            vectorSource = `sql:${served?.miss ?? 'disabled'}`;
          }
          this.textLeg.countedVector(vectorSource);
        }
        // No query word in any memory the caller may read: meaning alone must be close (relevance-floor.ts).
        const floor =
          textLeg && textHits.length === 0 && query && input.relevanceFloor !== false
            ? unmatchedVectorFloor(query.modelId, this.options.unmatchedVectorFloor)
            : -1;
        const vectorHits = nearest.filter((h) => 1 - h.distance >= floor);
        const vectorFloor = floor > -1 ? floor : null;
        const relevance = this.relevance(input.relevanceFloor !== false && textLeg !== null, {
          words: local?.words ?? null,
          nearest: query ? (nearest.length > 0 ? 1 - nearest[0].distance : null) : null,
          modelId: query?.modelId ?? null,
        });
        // Nothing in the caller's memories can answer it: no rows are read.
        if (relevance === null) {
          hitIds = [];
          return [];
        }
        hitIds = [...new Set([...textHits, ...vectorHits].map((h) => h.memoryId))];
        rank = ({ facts, threads: neighbours }) => {
          const legHits = {
            text: textHits,
            vector: vectorHits.map((h) => ({ memoryId: h.memoryId, score: 1 - h.distance })),
          };
          const fused = fuseLegs(legHits, fusion, adjacency(neighbours, fusion.contextDirection));
          const legWeights = fusionWeights(legHits, fusion);
          const scored = fused
            // A neighbour neither leg found is a candidate only when no filter narrows the recall:
            // the legs apply the filters, thread context does not (a neighbour lends to hits all the same).
            .filter((c) => facts.has(c.memoryId))
            .filter((c) => filters.length === 0 || c.textRank !== null || c.vectorRank !== null)
            .map((c) =>
              this.score(c, facts.get(c.memoryId) as RankingFacts, {
                now,
                filters,
                model: query?.modelId ?? null,
                textSource: textLeg?.source ?? null,
                vectorSource,
                boosted: input.projectBoost,
                vectorFloor,
                relevance,
                legWeights,
              }),
            );
          return sortRecalled(scored, facts, input.sortBy);
        };
        // With the tenant's index held, ranking facts and thread neighbours come from it; the rows
        // are then the transaction's one read after the legs, and its commit goes with them.
        const indexed =
          hitIds.length > 0 ? (local?.describe?.(hitIds, threads, implicitWindowMs) ?? null) : null;
        if (indexed === null) {
          const candidates = await this.candidates.describe(principal, tx, hitIds, {
            threads,
            heads: !input.includeSuperseded,
            implicitWindowMs,
          });
          // Ranking needed only the facts; rows and links are read for what is served.
          return serve(tx, candidates);
        }
        const served = await serve(tx, { ...indexed, heads: NO_HEADS });
        // A served memory that a memory the caller can see supersedes shows it among its links.
        return input.includeSuperseded || !served.some(isSuperseded) ? served : null;
      },
      { genericPlans: true, readOnly: true },
    );
    if (outcome !== null) return outcome;
    // Rare: an answer holds an older version of something. Its chain is walked in Postgres, and
    // the ranking read again there, in a second transaction.
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const candidates = await this.candidates.describe(principal, tx, hitIds, {
          threads,
          heads: true,
          implicitWindowMs,
        });
        return serve(tx, candidates);
      },
      { genericPlans: true, readOnly: true },
    );
  }

  private score(
    candidate: FusedCandidate,
    facts: RankingFacts,
    context: {
      now: Date;
      filters: string[];
      model: string | null;
      textSource: TextLegSource | null;
      vectorSource: VectorLegSource | null;
      boosted: string | undefined;
      vectorFloor: number | null;
      relevance: RecallRelevance;
      legWeights: { text: number; vector: number };
    },
  ): RankedCandidate {
    const ageDays = (context.now.getTime() - Date.parse(facts.createdAt)) / DAY_MS;
    const boosted = context.boosted !== undefined && facts.project === context.boosted;
    const explanation: RecallExplanation = {
      textRank: candidate.textRank,
      vectorRank: candidate.vectorRank,
      textScore: candidate.textScore,
      vectorScore: candidate.vectorScore,
      textCoverage: candidate.textCoverage,
      legWeights: context.legWeights,
      contextFrom: candidate.contextFrom,
      contextScore: candidate.contextScore,
      fusedScore: candidate.fusedScore,
      importanceFactor: importanceFactor(facts.importance),
      recencyFactor: recencyFactor(ageDays),
      projectFactor: boosted ? this.options.projectBoost : 1,
      codeFactor: 1,
      filters: context.filters,
      model: context.model,
      textSource: context.textSource,
      vectorSource: context.vectorSource,
      evidence: evidenceOf(candidate),
      vectorFloor: context.vectorFloor,
      relevance: context.relevance,
    };
    const rank =
      candidate.fusedScore *
      explanation.importanceFactor *
      explanation.recencyFactor *
      explanation.projectFactor;
    return { memoryId: candidate.memoryId, rank, explanation };
  }

  /**
   * The relevance floor (relevance-floor.ts): why the recall may answer, or null when it answers
   * nothing. `nearest`: the vector leg's best similarity (null without a vector leg or hit).
   */
  private relevance(
    judged: boolean,
    query: { words: readonly QueryWord[] | null; nearest: number | null; modelId: string | null },
  ): RecallRelevance | null {
    const off = { coverage: null, unknownShare: null };
    if (!judged) return { passed: 'off', ...off };
    const lexicon = this.lexicon?.get() ?? null;
    if (query.words === null || lexicon === null) return { passed: 'unavailable', ...off };
    const evidence: QueryEvidence | null = queryEvidence(query.words, lexicon);
    const rules: NonNullable<RecallOptions['floor']> = this.options.floor ?? DEFAULT_FLOOR_SETTINGS;
    const verdict = floorVerdict(evidence, query.nearest, {
      coverage: rules.coverage,
      unknownShare: rules.unknownShare,
      meaning: query.modelId === null ? null : meaningFloor(query.modelId, rules.meaning),
      thinCoverage: rules.thinCoverage ?? DEFAULT_FLOOR_SETTINGS.thinCoverage,
      thinMeaning: query.modelId === null ? null : thinMeaningFloor(query.modelId, rules.thinMeaning),
    });
    if (!verdict.answer) return null;
    return {
      passed: verdict.passed,
      coverage: evidence?.coverage ?? null,
      unknownShare: evidence?.unknownShare ?? null,
    };
  }
}

const NO_HEADS: ReadonlyMap<number, number> = new Map();

function isSuperseded(item: RecalledMemory): boolean {
  return item.links.some((l) => l.linkType === 'supersedes' && l.dstId === item.memory.id);
}

function evidenceOf(candidate: FusedCandidate): RecallEvidence {
  if (candidate.textRank !== null) return candidate.vectorRank !== null ? 'text+vector' : 'text';
  return candidate.vectorRank !== null ? 'vector' : 'context';
}

function sortRecalled(
  items: RankedCandidate[],
  facts: ReadonlyMap<number, RankingFacts>,
  sortBy: RecallSort,
): RankedCandidate[] {
  const byRank = (a: RankedCandidate, b: RankedCandidate) => b.rank - a.rank || b.memoryId - a.memoryId;
  const of = (item: RankedCandidate) => facts.get(item.memoryId) as RankingFacts;
  switch (sortBy) {
    case 'relevance':
      return items.sort(byRank);
    case 'importance':
      return items.sort((a, b) => of(b).importance - of(a).importance || byRank(a, b));
    case 'recency':
      return items.sort((a, b) => of(b).createdAt.localeCompare(of(a).createdAt) || byRank(a, b));
  }
}
