/**
 * The test door: adapters and internals for integration tests and benchmarks that wire the lib
 * by hand (the benchmark runs the same SQL raw as its floor). Production code imports only the
 * index (lint enforces both).
 */
import type { TransactionRunner } from '@app/persistence';
import {
  DEFAULT_TEXT_SEARCH_OPTIONS,
  MemoryTextSearchRepository,
  type TextSearchOptions,
} from './adapters/memory-text-search.repository';
import { TextIndexFeedRepository } from './adapters/text-index-feed.repository';
import { TextLeg } from './application/text-leg';
import {
  DEFAULT_TEXT_INDEX_OPTIONS,
  TextIndexRegistry,
  type TextIndexOptions,
} from './application/text-index-registry';

export {
  MemoryTextSearchRepository,
  DEFAULT_TEXT_SEARCH_OPTIONS,
  type TextSearchOptions,
} from './adapters/memory-text-search.repository';
export { MemoryNeighbourRepository } from './adapters/memory-neighbour.repository';
export { RecallCandidateRepository } from './adapters/recall-candidate.repository';
export * from './adapters/memory-vector.repository';
export * from './adapters/memory-vector.sql';
export { VectorRecallAdapter } from './adapters/vector-recall.adapter';
export { RecallLinks } from './application/recall-links';
export { TextIndexFeedRepository, type TextIndexDelta } from './adapters/text-index-feed.repository';
export { TenantTextIndex, type IndexedDoc, type TextAudience } from './domain/text-index';
export { TenantVectorIndex, type NearestHit, type NearestPlan } from './domain/vector-index';
export { UsearchGraph } from './adapters/usearch-graph';
export { TextLeg, type TextLegResult } from './application/text-leg';
export {
  TextIndexRegistry,
  DEFAULT_TEXT_INDEX_OPTIONS,
  type TextIndexOptions,
} from './application/text-index-registry';

/** A text leg wired by hand, with its registry: Postgres only unless `maxBytes` gives the index a budget. */
export function buildTextIndexLeg(
  tx: TransactionRunner,
  options: Partial<TextIndexOptions> = {},
  bm25: TextSearchOptions = DEFAULT_TEXT_SEARCH_OPTIONS,
): { leg: TextLeg; registry: TextIndexRegistry } {
  const feed = new TextIndexFeedRepository();
  const registry = new TextIndexRegistry(tx, feed, {
    ...DEFAULT_TEXT_INDEX_OPTIONS,
    maxBytes: 0,
    ...options,
  });
  return { leg: new TextLeg(registry, feed, new MemoryTextSearchRepository(bm25), bm25), registry };
}

/** The text leg through Postgres alone, wired by hand. */
export const buildTextLeg = (tx: TransactionRunner, bm25?: TextSearchOptions): TextLeg =>
  buildTextIndexLeg(tx, {}, bm25).leg;
export { LexiconSource } from './adapters/lexicon-source';
