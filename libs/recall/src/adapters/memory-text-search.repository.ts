import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';
import { recallWhere } from './recall-filter.sql';

export interface TextHit {
  readonly memoryId: number;
  readonly score: number;
}

/** Terms of the loose query: the lexemes Postgres itself extracts, at most this many. */
const MAX_LOOSE_TERMS = 32;

/**
 * Full-text leg of recall over the generated `search_vector` (A content, B keywords, C tags,
 * D category). First `websearch_to_tsquery` (all terms); when that finds fewer than `k`, an OR of
 * the query's lexemes fills up the list behind the strict hits.
 */
@Injectable()
export class MemoryTextSearchRepository {
  async search(
    scope: TenantScope,
    tx: Tx,
    input: { text: string; k: number; filter: RecallFilter },
  ): Promise<TextHit[]> {
    const strict = await this.run(scope, tx, input, `websearch_to_tsquery('english', $1)`);
    if (strict.length >= input.k) return strict;
    const loose = await this.run(
      scope,
      tx,
      input,
      `(SELECT coalesce(string_agg(quote_literal(l), ' | '), '')::tsquery
          FROM (SELECT l FROM unnest(tsvector_to_array(to_tsvector('english', $1))) AS l LIMIT ${MAX_LOOSE_TERMS}) t)`,
    );
    const seen = new Set(strict.map((h) => h.memoryId));
    return [...strict, ...loose.filter((h) => !seen.has(h.memoryId))].slice(0, input.k);
  }

  private async run(
    scope: TenantScope,
    tx: Tx,
    input: { text: string; k: number; filter: RecallFilter },
    tsquerySql: string,
  ): Promise<TextHit[]> {
    const where = recallWhere(scope, input.filter, 3);
    const { rows } = await tx.query<{ id: string; score: number }>(
      `WITH q AS (SELECT ${tsquerySql} AS query)
       SELECT m.id, ts_rank_cd(m.search_vector, q.query, 1) AS score
         FROM memories m, q
        WHERE numnode(q.query) > 0 AND m.search_vector @@ q.query AND ${where.sql}
        ORDER BY score DESC, m.id DESC
        LIMIT $2`,
      [input.text, input.k, ...where.params],
    );
    return rows.map((r) => ({ memoryId: Number(r.id), score: Number(r.score) }));
  }
}
