/**
 * The test door: adapters and internals for integration tests and benchmarks that wire the lib
 * by hand. Production code imports only the index (lint enforces both).
 */
export { QueryEmbeddingCache } from './adapters/embedding/query-embedding-cache';
export { loadModelById } from './adapters/embedding/model-runtimes';
export { loadUseLiteModel, type UseLiteRuntime } from './adapters/embedding/use-lite/use-lite-runtime';
export { loadTransformersModel, type LoadedModel } from './adapters/embedding/transformers-runtime';
export { EmbeddingModelRepository } from './adapters/embedding-model.repository';
export { MemoryEmbeddingRepository } from './adapters/memory-embedding.repository';
export { TenantVectorIndexRepository, type SessionQuery } from './adapters/tenant-vector-index.repository';
export { MemoryIndexStateRepository } from './adapters/memory-index-state.repository';
export { IndexBacklogMetrics } from './adapters/index-backlog.metrics';
export * from './adapters/transformers-embedder';
export { EmbedMemoriesStep } from './application/embed-memories.step';
