/**
 * The test door: adapters and internals for integration tests and benchmarks that wire the lib
 * by hand (the benchmark runs the same SQL raw as its floor). Production code imports only the
 * index (lint enforces both).
 */
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
