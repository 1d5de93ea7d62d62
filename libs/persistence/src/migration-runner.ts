import type { DataSource } from 'typeorm';

/** Arbitrary constant shared by every process of this service: "memsvc" as an int. */
export const MIGRATION_LOCK_KEY = 0x6d656d73;

export interface MigrationRunResult {
  readonly applied: string[];
  readonly waitedForLockMs: number;
}

/**
 * Runs pending migrations under a session-level advisory lock so that replicas starting
 * together never race: one applies, the others wait, then find nothing pending.
 */
export async function runMigrations(dataSource: DataSource): Promise<MigrationRunResult> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const started = Date.now();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const waitedForLockMs = Date.now() - started;
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return { applied: applied.map((m) => m.name), waitedForLockMs };
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}
