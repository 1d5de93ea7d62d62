/**
 * The test door: adapters and internals for integration tests and benchmarks that wire the lib
 * by hand. Production code imports only the index (lint enforces both).
 */
export { IdempotencyRepository } from './write/idempotency.repository';
export { MemoryIndexRequestRepository } from './write/memory-index-request.repository';
export { MemoryReadRepository } from './read-model/memory-read.repository';
export { MemoryWriteRepository } from './write/memory-write.repository';
export { MemoryIndexing } from './write/memory-indexing';
export { MemoryLifecycle } from './write/memory-lifecycle';
export { MemoryUpdate } from './write/memory-update';
export { MemoryVersionWriteRepository } from './write/memory-version-write.repository';
export { MemoryVersionRepository } from './versions/adapters/memory-version.repository';
export { NewMemoryRows } from './write/new-memory-rows';
export { MemoryUsageRepository } from './adapters/memory-usage.repository';
export { MemoryWriter } from './write/memory-writer';
export { SecretBatchRepository } from './secret-memories/adapters/secret-batch.repository';
export { SecretCleanupRepository } from './write/secret-cleanup.repository';
export { SecretScreen } from './write/secret-screen';
export { SecretStaging } from './write/secret-staging';
export { UserDataRepository } from './adapters/user-data.repository';
export { MemoryLinkRepository } from './write/memory-link.repository';
export { MemoryLinkWriter } from './write/memory-link-writer';
export { MemoryExportRepository } from './export/adapters/memory-export.repository';
export { MemoryWriteModule } from './write/memory-write.module';
export { PinRepository } from './pins/adapters/pin.repository';
export { AgentContextRepository } from './projection/adapters/agent-context.repository';
export { CodeEventRepository } from './code/adapters/code-event.repository';
