export * from './tally';
export * from './processes';
export * from './round-robin-proxy';
export * from './process-harness';
