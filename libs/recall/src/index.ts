export * from './domain/recall-filter';
export * from './domain/rank-fusion';
export * from './ports/vector-recall.port';
export * from './contracts/recall.schemas';
export * from './application/recall-memories.use-case';
export * from './application/check-memory.use-case';
export * from './application/find-duplicates.use-case';
export * from './recall.module';
