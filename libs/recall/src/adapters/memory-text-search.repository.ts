import { Inject, Injectable, Optional } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';
import { queryChunks } from '../domain/query-lexemes';
import type { QueryWord } from '../domain/relevance-floor';

export interface TextHit {
  readonly memoryId: number;
  readonly score: number;
  /** Share of the query's IDF this memory's terms hold (`TenantTextIndex.coverageOf`, `recall_text_coverage`). */
  readonly coverage?: number;
}

/** Okapi BM25 parameters (RECALL_BM25_K1, RECALL_BM25_B). */
export interface TextSearchOptions {
  /** Term-frequency saturation: 0 counts a term once, higher lets repeats count longer. */
  readonly k1: number;
  /** Length normalisation: 0 none, 1 full. */
  readonly b: number;
}
export const TEXT_SEARCH_OPTIONS = Symbol('TEXT_SEARCH_OPTIONS');
export const DEFAULT_TEXT_SEARCH_OPTIONS: TextSearchOptions = { k1: 1.2, b: 0.75 };

/**
 * Full-text leg of recall: Okapi BM25 over the generated `search_vector` (A content, B keywords,
 * C tags, D category, weighted 1 / 0.4 / 0.2 / 0.1), any query term matching (OR).
 *
 * The query's terms are what Postgres makes of the text (`to_tsvector('english', …)`: stop words
 * dropped, Snowball stems, names and numbers kept; the 32 rarest of a longer text). Scoring runs in `recall_text_search` (migration
 * 1763700000017) over per-tenant term statistics, using the GIN index: under row-level security
 * Postgres cannot use it for `@@`, so the function applies the caller's tenant and read rule itself
 * (from the transaction's settings, as the memories policy does) and returns only ids and scores of
 * memories the caller may read. `scope` is not sent: the settings are the caller.
 */
@Injectable()
export class MemoryTextSearchRepository {
  constructor(
    @Optional()
    @Inject(TEXT_SEARCH_OPTIONS)
    private readonly options: TextSearchOptions = DEFAULT_TEXT_SEARCH_OPTIONS,
  ) {}

  async search(
    scope: TenantScope,
    tx: Tx,
    input: { text: string; k: number; filter: RecallFilter },
  ): Promise<TextHit[]> {
    const query = buildTextSearchQuery({ ...input, ...this.options });
    const { rows } = await tx.query<{ id: string; score: number; coverage: number | null }>(
      query.sql,
      query.params,
    );
    return rows.map(textHit);
  }

  /**
   * `search` and, in the same statement, the query's content words and whether a memory the caller
   * may read holds each (`recall_query_words`, for the relevance floor; null when the text has
   * markup, which Postgres must parse whole).
   */
  async searchWithWords(
    scope: TenantScope,
    tx: Tx,
    input: { text: string; k: number; filter: RecallFilter },
  ): Promise<{ hits: TextHit[]; words: QueryWord[] | null }> {
    const chunks = queryChunks(input.text);
    if (chunks === null) return { hits: await this.search(scope, tx, input), words: null };
    const query = buildTextSearchQuery({ ...input, ...this.options });
    const { rows } = await tx.query<{
      id: string | null;
      score: number | null;
      coverage: number | null;
      words: string[][];
      present: string[];
    }>(
      `WITH w AS (SELECT * FROM recall_query_words($${query.params.length + 1}::text[]))
       SELECT h.id, h.score, h.coverage, w.words, w.present FROM w LEFT JOIN LATERAL (${query.sql}) h ON true
        ORDER BY h.score DESC, h.id DESC`,
      [...query.params, chunks],
    );
    const first = rows[0];
    const present = new Set(first?.present ?? []);
    const words = chunks.flatMap((chunk, i) => {
      const lexemes = first?.words[i] ?? [];
      return lexemes.length > 0 ? [{ chunk, present: lexemes.some((l) => present.has(l)) }] : [];
    });
    const hits = rows.flatMap((r) =>
      r.id === null ? [] : [textHit({ id: r.id, score: Number(r.score), coverage: r.coverage })],
    );
    return { hits, words };
  }
}

function textHit(r: { id: string; score: number; coverage: number | null }): TextHit {
  const hit = { memoryId: Number(r.id), score: Number(r.score) };
  return r.coverage === null ? hit : { ...hit, coverage: Number(r.coverage) };
}

/**
 * The text leg's one statement: the caller's top `$2` memories for the text `$1` by BM25, each with
 * how much of the query it holds (`recall_text_coverage`, migration 1763700000061).
 */
export function buildTextSearchQuery(
  input: { text: string; k: number; filter: RecallFilter } & TextSearchOptions,
): { sql: string; params: unknown[] } {
  const f = input.filter;
  return {
    sql: `WITH h AS (
            SELECT s.memory_id, s.score
              FROM recall_text_search(
                     tsvector_to_array(to_tsvector('english', $1)), $2, $3, $4,
                     $5, $6::text[], $7, $8::timestamptz, $9::timestamptz) s)
          SELECT h.memory_id AS id, h.score, c.coverage
            FROM h LEFT JOIN recall_text_coverage(
                   tsvector_to_array(to_tsvector('english', $1)), ARRAY(SELECT memory_id FROM h)) c
              ON c.memory_id = h.memory_id
           ORDER BY h.score DESC, h.memory_id DESC`,
    params: [
      input.text,
      input.k,
      input.k1,
      input.b,
      f.category ?? null,
      f.tags !== undefined && f.tags.length > 0 ? [...f.tags] : null,
      f.project ?? null,
      f.since ?? null,
      f.before ?? null,
    ],
  };
}
