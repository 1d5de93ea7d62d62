export * from './tx';
export * from './data-source.factory';
export * from './migration-runner';
export * from './transaction-runner';
