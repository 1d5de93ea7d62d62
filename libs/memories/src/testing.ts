/**
 * The test door: adapters and internals for integration tests and benchmarks that wire the lib
 * by hand. Production code imports only the index (lint enforces both).
 */
export { IdempotencyRepository } from './adapters/idempotency.repository';
export { MemoryIndexRequestRepository } from './adapters/memory-index-request.repository';
export { MemoryRepository } from './adapters/memory.repository';
export { MemoryUsageRepository } from './adapters/memory-usage.repository';
export { MemoryWriter } from './application/memory-writer';
export { SecretBatchRepository } from './secret-memories/adapters/secret-batch.repository';
export { SecretCleanupRepository } from './secret-memories/adapters/secret-cleanup.repository';
export { SecretScreen } from './secret-memories/application/secret-screen';
export { SecretStaging } from './secret-memories/application/secret-staging';
export { UserDataRepository } from './adapters/user-data.repository';
export { MemoryLinkRepository } from './links/adapters/memory-link.repository';
export { MemoryLinkWriter } from './links/application/memory-link-writer';
export { MemoryExportRepository } from './export/adapters/memory-export.repository';
