export * from './tx';
export * from './data-source.factory';
export * from './migration-runner';
export * from './transaction-runner';
export * from './persistence.module';
export * from './embedded/embedded-postgres';
export { DataDirLockedError } from './embedded/data-dir-lock';
export * from './sql-fragments';
export * from './server-secret.repository';
