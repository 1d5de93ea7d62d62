import { Inject, Injectable, Optional } from '@nestjs/common';
import type { TenantScope, Tx } from '@app/persistence';
import {
  DEFAULT_TEXT_SEARCH_OPTIONS,
  MemoryTextSearchRepository,
  TEXT_SEARCH_OPTIONS,
  type TextHit,
  type TextSearchOptions,
} from '../adapters/memory-text-search.repository';
import {
  audienceIn,
  TextIndexFeedRepository,
  type TenantAudiences,
} from '../adapters/text-index-feed.repository';
import type { LexemeLookup } from '../domain/query-lexemes';
import type { QueryWord } from '../domain/relevance-floor';
import { isAdminScope } from '../adapters/recall-filter.sql';
import type { RecallFilter } from '../domain/recall-filter';
import type { IndexedFacts, IndexedNeighbours, TenantTextIndex, TextAudience } from '../domain/text-index';
import type { PreparedQuery, VectorHit } from '../ports/vector-recall.port';
import { graphsAvailable } from '../adapters/usearch-graph';
import { TextIndexRegistry, type TextIndexMiss, type VectorIndexMiss } from './text-index-registry';

/** Where a recall's text leg ran: the process's index, or Postgres and why. */
export type TextLegSource = 'index' | `sql:${TextIndexMiss}`;
/** Where a recall's vector leg ran: the process's vector index, or Postgres and why. */
export type VectorLegSource = 'index' | `sql:${VectorIndexMiss}`;

export interface TextLegResult {
  readonly hits: TextHit[];
  readonly source: TextLegSource;
  /**
   * The vector leg, when a query vector was given and this process's vector index answered it;
   * otherwise why it must run in Postgres.
   */
  readonly vector: { readonly hits: VectorHit[] } | { readonly miss: VectorIndexMiss } | null;
  /**
   * With the index: the candidates' ranking facts and thread neighbours for this caller, read from
   * it (`TenantTextIndex.describe`; null when it cannot answer as Postgres would). Absent: read them
   * in Postgres.
   */
  readonly describe?: (
    ids: readonly number[],
    threads: boolean,
    implicitWindowMs?: number,
  ) => IndexedCandidates | null;
  /**
   * With the index: the query's words and whether a memory the caller may read holds each (for the
   * relevance floor). Null: not known here (the text leg ran in Postgres).
   */
  readonly words: readonly QueryWord[] | null;
}

export interface IndexedCandidates {
  readonly facts: ReadonlyMap<number, IndexedFacts>;
  readonly threads: readonly IndexedNeighbours[];
}

/**
 * Recall's text leg: exact BM25 over the caller's visible memories. Served by the tenant's
 * in-memory index when this process holds it — one statement brings the index up to date, tokenises
 * the query and reads the tenant's shares, unless the index is fresh; the scoring runs here, not in
 * Postgres — and by the
 * `recall_text_search` function otherwise (while the index loads, or when it does not fit). Either
 * way only ids leave this leg, and recall reads them again under the caller's row-level security.
 */
@Injectable()
export class TextLeg {
  constructor(
    private readonly registry: TextIndexRegistry,
    private readonly feed: TextIndexFeedRepository,
    private readonly sql: MemoryTextSearchRepository,
    @Optional()
    @Inject(TEXT_SEARCH_OPTIONS)
    private readonly bm25: TextSearchOptions = DEFAULT_TEXT_SEARCH_OPTIONS,
  ) {}

  /**
   * The text leg (unless `withText` is false) and, given a query vector, the vector leg where this
   * process holds the tenant's vectors. One statement (`recall_index_refresh`) brings both indexes up
   * to date, tokenises the query and reads the tenant's shares — unless the index is fresh
   * (`TextIndexRegistry.fresh`) and the process's cache knows every word of the query: then no
   * statement runs here.
   */
  async search(
    scope: TenantScope,
    tx: Tx,
    input: {
      text: string;
      k: number;
      filter: RecallFilter;
      query?: PreparedQuery | null;
      withText?: boolean;
    },
    nowMs = Date.now(),
  ): Promise<TextLegResult> {
    const withText = input.withText ?? true;
    const query = input.query ?? null;
    const held = this.registry.acquire(scope, query);
    if ('miss' in held) {
      if (!withText)
        return {
          hits: [],
          source: `sql:${held.miss}`,
          vector: query ? { miss: held.miss } : null,
          words: null,
        };
      this.registry.counted('sql');
      const found = await this.sql.searchWithWords(scope, tx, input);
      return {
        hits: found.hits,
        source: `sql:${held.miss}`,
        vector: query ? { miss: held.miss } : null,
        words: found.words,
      };
    }
    const vectors = query ? this.registry.acquireVectors(scope, held.entry, query) : null;
    const ready = vectors !== null && 'vectors' in vectors ? vectors.vectors : null;
    // Fresh (refreshed a moment ago, no write of the tenant here since) and every query word known:
    // no statement before the rows. Otherwise one statement brings both indexes up to date.
    const words: LexemeLookup = withText ? this.registry.lexemes.lookup(input.text) : { lexemes: [] };
    const fresh = this.registry.fresh(scope, held.entry, ready);
    let lexemes: readonly string[];
    let audiences: TenantAudiences;
    if (fresh !== null && words !== null && 'lexemes' in words) {
      lexemes = words.lexemes;
      audiences = fresh;
      this.registry.countedRefresh('fresh');
    } else {
      const ask = words !== null && 'ask' in words ? words.ask : [];
      const start = this.registry.refreshStart(scope);
      const refresh = await this.feed.refresh(
        tx,
        held.entry.position,
        input.text,
        ask,
        ready ? { modelId: ready.modelId, after: ready.position } : null,
      );
      this.registry.apply(scope, held.entry, refresh, ready, { start, audiences: refresh.audiences });
      this.registry.lexemes.learn(ask, refresh.words);
      this.registry.countedRefresh('refreshed');
      lexemes = refresh.lexemes;
      audiences = refresh.audiences;
    }
    const audience = audienceIn(audiences, { userId: scope.userId, admin: isAdminScope(scope) });
    const index = held.entry.index;
    let hits: TextHit[] = [];
    if (withText) {
      this.registry.counted('index');
      hits = index.search({
        lexemes,
        k: input.k,
        k1: this.bm25.k1,
        b: this.bm25.b,
        filter: input.filter,
        audience,
        nowMs,
      });
    }
    const describe = (ids: readonly number[], threads: boolean, implicitWindowMs = 0) =>
      index.describe(ids, { audience, nowMs }, threads, implicitWindowMs);
    const queryWords = withText ? this.wordsOf(input.text, index, { audience, nowMs }) : null;
    if (query === null || vectors === null)
      return { hits, source: 'index', vector: null, describe, words: queryWords };
    if (ready === null)
      return {
        hits,
        source: 'index',
        vector: { miss: (vectors as { miss: VectorIndexMiss }).miss },
        describe,
        words: queryWords,
      };
    const read = { filter: input.filter, audience, nowMs };
    const accepts = index.accepting(read);
    const found =
      accepts === null
        ? { hits: [], plan: 'exact' as const }
        : ready.index.search({
            vector: query.vector,
            k: input.k,
            accepts,
            forEachAccepted: (visit) => index.forEachAccepted(read, visit),
            bound: index.readableBound(audience),
          });
    if (found === null)
      return {
        hits,
        source: 'index',
        vector: { miss: graphsAvailable() ? 'building' : 'unavailable' },
        describe,
        words: queryWords,
      };
    return { hits, source: 'index', vector: { hits: found.hits }, describe, words: queryWords };
  }

  /** The query's content words (chunks with a lexeme) and whether a readable memory holds each. */
  private wordsOf(
    text: string,
    index: TenantTextIndex,
    read: { audience: TextAudience; nowMs: number },
  ): QueryWord[] | null {
    const chunks = this.registry.lexemes.chunks(text);
    if (chunks === null) return null;
    const content = chunks.filter((c) => c.lexemes.length > 0);
    const present = index.present([...new Set(content.flatMap((c) => c.lexemes))], read);
    return content.map((c) => ({ chunk: c.chunk, present: c.lexemes.some((l) => present.has(l)) }));
  }

  /** Counts where a recall's vector leg ran (`memsvc_recall_vector_leg_total`). */
  countedVector(source: VectorLegSource): void {
    this.registry.vectorCounted(source);
  }
}
