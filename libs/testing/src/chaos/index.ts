export * from './tally';
