export * from './tally';
export * from './fault-proxy';
