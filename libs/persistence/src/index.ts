export * from './tx';
export * from './statement-batch';
export * from './data-source.factory';
export * from './migration-runner';
export * from './transaction-runner';
export * from './persistence.module';
export * from './embedded/embedded-postgres';
export { DataDirLockedError } from './embedded/data-dir-lock';
export * from './sql-fragments';
export * from './server-secret.repository';
export * from './statistics';
export * from './probe-postgres';
export * from './database-unavailable.error';
export { TENANT_WRITES, type TenantWrites } from './tenant-writes';
export * from './replicas/lsn';
export * from './replicas/read-consistency';
export * from './replicas/write-positions';
export {
  ReplicaReads,
  ReplicaBehindError,
  type ReplicaReadsOptions,
  type ReplicaStatus,
  type PrimaryReason,
  type ReplicaReadsListener,
} from './replicas/replica-reads';
export * from './tenant-layout';
