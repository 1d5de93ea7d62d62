export * from './tally';
export * from './free-port';
export * from './private-postgres';
export * from './write-ledger';
export * from './processes';
export * from './round-robin-proxy';
export * from './process-harness';
