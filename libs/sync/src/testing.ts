/**
 * The test door: adapters and internals for integration tests that wire the lib by hand.
 * Production code imports only the index (lint enforces both).
 */
export { MemorySyncRepository } from './adapters/memory-sync.repository';
export { SyncFeedRepository } from './adapters/sync-feed.repository';
export { SyncRetentionRepository } from './adapters/sync-retention.repository';
export { SyncCursorCodecProvider } from './application/sync-cursor-codec.provider';
