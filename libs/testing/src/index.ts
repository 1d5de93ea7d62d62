export * from './test-database';
export * from './fake-vault';
export * from './fixtures';
export * from './deterministic-embedder';
export * from './chaos';
export * from './query-spy';
export * from './use-case-testing';
export * from './streaming-replica';
