import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';

export interface TextHit {
  readonly memoryId: number;
  readonly score: number;
}

/** Terms of the loose query: the lexemes Postgres itself extracts, at most this many. */
const MAX_LOOSE_TERMS = 32;

const STRICT_TSQUERY_SQL = `websearch_to_tsquery('english', $1)`;
const LOOSE_TSQUERY_SQL = `(SELECT coalesce(string_agg(quote_literal(l), ' | '), '')::tsquery
          FROM (SELECT l FROM unnest(tsvector_to_array(to_tsvector('english', $1))) AS l LIMIT ${MAX_LOOSE_TERMS}) t)`;

/**
 * Full-text leg of recall over the generated `search_vector` (A content, B keywords, C tags,
 * D category). First `websearch_to_tsquery` (all terms); when that finds fewer than `k`, an OR of
 * the query's lexemes fills up the list behind the strict hits.
 *
 * The search runs in `recall_text_search` (migration 1763700000009): under row-level security
 * Postgres cannot use the GIN index for `@@`, so the function applies the caller's tenant and read
 * rule itself (from the transaction's settings, as the memories policy does) and returns only ids
 * and scores of memories the caller may read. `scope` is not sent: the settings are the caller.
 */
@Injectable()
export class MemoryTextSearchRepository {
  async search(
    scope: TenantScope,
    tx: Tx,
    input: { text: string; k: number; filter: RecallFilter },
  ): Promise<TextHit[]> {
    const strict = await this.run(tx, buildTextSearchQuery(STRICT_TSQUERY_SQL, input));
    if (strict.length >= input.k) return strict;
    const loose = await this.run(tx, buildTextSearchQuery(LOOSE_TSQUERY_SQL, input));
    const seen = new Set(strict.map((h) => h.memoryId));
    return [...strict, ...loose.filter((h) => !seen.has(h.memoryId))].slice(0, input.k);
  }

  private async run(tx: Tx, query: { sql: string; params: unknown[] }): Promise<TextHit[]> {
    const { rows } = await tx.query<{ id: string; score: number }>(query.sql, query.params);
    return rows.map((r) => ({ memoryId: Number(r.id), score: Number(r.score) }));
  }
}

/** One text-leg statement: the tsquery built from `$1`, the caller's top `$2` matches by score. */
export function buildTextSearchQuery(
  tsquerySql: string,
  input: { text: string; k: number; filter: RecallFilter },
): { sql: string; params: unknown[] } {
  const f = input.filter;
  return {
    sql: `SELECT h.memory_id AS id, h.score
            FROM recall_text_search(${tsquerySql}, $2, $3, $4::text[], $5, $6::timestamptz, $7::timestamptz) h
           ORDER BY h.score DESC, h.memory_id DESC`,
    params: [
      input.text,
      input.k,
      f.category ?? null,
      f.tags !== undefined && f.tags.length > 0 ? [...f.tags] : null,
      f.project ?? null,
      f.since ?? null,
      f.before ?? null,
    ],
  };
}
