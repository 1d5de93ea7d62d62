export * from './tally';
export * from './free-port';
export * from './private-postgres';
export * from './write-ledger';
