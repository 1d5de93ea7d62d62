import { Inject, Injectable, Optional } from '@nestjs/common';
import type { TenantScope, Tx } from '@app/persistence';
import {
  DEFAULT_TEXT_SEARCH_OPTIONS,
  MemoryTextSearchRepository,
  TEXT_SEARCH_OPTIONS,
  type TextHit,
  type TextSearchOptions,
} from '../adapters/memory-text-search.repository';
import { audienceOf, TextIndexFeedRepository } from '../adapters/text-index-feed.repository';
import { isAdminScope } from '../adapters/recall-filter.sql';
import type { RecallFilter } from '../domain/recall-filter';
import { TextIndexRegistry, type TextIndexMiss } from './text-index-registry';

/** Where a recall's text leg ran: the process's index, or Postgres and why. */
export type TextLegSource = 'index' | `sql:${TextIndexMiss}`;

export interface TextLegResult {
  readonly hits: TextHit[];
  readonly source: TextLegSource;
}

/**
 * Recall's text leg: exact BM25 over the caller's visible memories. Served by the tenant's
 * in-memory index when this process holds it — one statement brings the index up to date, tokenises
 * the query and reads the caller's shares; the scoring runs here, not in Postgres — and by the
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

  async search(
    scope: TenantScope,
    tx: Tx,
    input: { text: string; k: number; filter: RecallFilter },
    nowMs = Date.now(),
  ): Promise<TextLegResult> {
    const held = this.registry.acquire(scope);
    if ('miss' in held) {
      this.registry.counted('sql');
      return { hits: await this.sql.search(scope, tx, input), source: `sql:${held.miss}` };
    }
    const delta = await this.feed.delta(tx, held.entry.position, input.text);
    this.registry.apply(scope, held.entry, delta);
    this.registry.counted('index');
    const hits = held.entry.index.search({
      lexemes: delta.lexemes,
      k: input.k,
      k1: this.bm25.k1,
      b: this.bm25.b,
      filter: input.filter,
      audience: audienceOf(delta, { userId: scope.userId, admin: isAdminScope(scope) }),
      nowMs,
    });
    return { hits, source: 'index' };
  }
}
