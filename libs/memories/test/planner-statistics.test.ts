import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AnalyzeStatisticsJob, JOB_DEFINITIONS, OutboxWriter } from '@app/jobs';
import { ImportMemoriesUseCase } from '@app/memories';
import { staleTables } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor, importParts } from '../../../test/support/memory-writes';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';
import { waitFor } from '../../../test/support/wait-for';

const limits = { maxContentBytes: 4096, maxImportBatch: 500, maxListLimit: 100 };

/** Planner statistics kept current by the service itself, not by autovacuum (off here). */
describe('planner statistics after bulk writes', () => {
  let scratch: ScratchDatabase;
  let db: TestDatabase;
  let alice: Principal;
  let importer: ImportMemoriesUseCase;

  const analyzedAt = async (table: string): Promise<string | null> => {
    const [row] = await db.dataSource.query(
      `SELECT coalesce(last_analyze, last_autoanalyze)::text AS at FROM pg_stat_user_tables WHERE relname = $1`,
      [table],
    );
    return (row as { at: string | null }).at;
  };

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'planner_stats');
    db = await openTestDatabase(scratch.url, 4);
    for (const table of ['memories', 'memory_index_state', 'outbox']) {
      await db.dataSource.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    }
    alice = await memberPrincipal(await createTestTenant(db, 'stats'), 'alice');
    importer = new ImportMemoriesUseCase(
      await memoryWriterFor(db.tx, limits),
      new AuditWriter(),
      new OutboxWriter(),
      limits,
      ...importParts(),
    );
  });

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('asks for an ANALYZE of the memory tables with a bulk import, and the job runs it', async () => {
    const items = Array.from({ length: 150 }, (_, i) => newMemory(`bulk imported memory ${i}`));
    await importer.execute(alice, items);
    const [job] = await db.dataSource.query(
      `SELECT payload FROM outbox WHERE job_name = 'maintenance.analyze' ORDER BY id DESC LIMIT 1`,
    );
    const payload = JOB_DEFINITIONS['maintenance.analyze'].parse((job as { payload: unknown }).payload);
    expect(payload.tables).toEqual(['memories', 'memory_index_state']);

    expect(await analyzedAt('memories')).toBeNull();
    await new AnalyzeStatisticsJob(db.tx).run(payload);
    expect(await analyzedAt('memories')).not.toBeNull();
    expect(await analyzedAt('memory_index_state')).not.toBeNull();
  });

  it('finds the tables that changed enough since their last ANALYZE, and the scheduled run analyzes them', async () => {
    await importer.execute(
      alice,
      Array.from({ length: 400 }, (_, i) => newMemory(`second batch ${i}`)),
    );
    await importer.execute(
      alice,
      Array.from({ length: 400 }, (_, i) => newMemory(`third batch ${i}`)),
    );
    // Statistics counters reach the shared view shortly after commit.
    const stale = await waitFor('stale tables', async () => {
      const tables = await db.tx.asSystem((tx) => staleTables(tx, { minChanges: 500, fraction: 0.1 }));
      return tables.includes('memories') ? tables : undefined;
    });
    expect(stale).toContain('memories');
    await new AnalyzeStatisticsJob(db.tx).run({ slot: new Date().toISOString() });
    const after = await db.tx.asSystem((tx) => staleTables(tx, { minChanges: 500, fraction: 0.1 }));
    expect(after).not.toContain('memories');
  });
});
