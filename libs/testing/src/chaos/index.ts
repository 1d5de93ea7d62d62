export * from './tally';
export * from './schema-arbitrary';
export * from './schema-mutations';
export * from './db-snapshot';
