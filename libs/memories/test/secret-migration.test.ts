import { SecretBatchRepository } from '@app/memories/testing';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AdminJobRepository, GetAdminJobUseCase, OutboxWriter } from '@app/jobs';
import { RunSecretMigrationUseCase, SecretMigrator, StartSecretMigrationUseCase } from '@app/memories';
import { SecretScreen } from '@app/memories/testing';
import {
  SecretDetector,
  SecretStoreError,
  type PutSecretOptions,
  type SecretRef,
  type SecretStore,
} from '@app/secrets';
import { VaultSecretStore } from '@app/secrets/testing';
import { AuditWriter, type Principal, type SystemActor } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';
import { FakeVault } from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import type { TransactionRunner } from '@app/persistence';

/** The migration's producer side, as the admin route and the CLI get it from MemoriesModule. */
function createSecretMigrationUseCases(tx: TransactionRunner) {
  const jobs = new AdminJobRepository();
  return {
    start: new StartSecretMigrationUseCase(tx, jobs, new OutboxWriter(), new AuditWriter()),
    getJob: new GetAdminJobUseCase(tx, jobs),
  };
}

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };

/** Fault injection around the real Vault adapter: the n-th write finds Vault unavailable. */
class FailingOnNthPut implements SecretStore {
  readonly kind = 'vault' as const;
  private puts = 0;
  constructor(
    private readonly inner: VaultSecretStore,
    private readonly failAt: number,
  ) {}
  put(ref: SecretRef, content: string, options?: PutSecretOptions) {
    this.puts += 1;
    if (this.puts === this.failAt) return Promise.reject(SecretStoreError.unavailable('Vault went away'));
    return this.inner.put(ref, content, options);
  }
  get = (ref: SecretRef) => this.inner.get(ref);
  delete = (ref: SecretRef) => this.inner.delete(ref);
  locate = (ref: SecretRef) => this.inner.locate(ref);
}

/**
 * The migration job against real Postgres and a real Vault client (fake Vault API): resumable
 * after a failed delivery, and two jobs plus a duplicate delivery at once move each secret once.
 */
describe('secret migration job', () => {
  const vault = new FakeVault();
  let db: TestDatabase;
  let store: VaultSecretStore;
  let tenant: Awaited<ReturnType<typeof createTestTenant>>;
  let alice: Principal;
  let bob: Principal;
  let actor: SystemActor;

  const runnerWith = async (secretStore: SecretStore, batchSize: number) => {
    const migrator = new SecretMigrator(
      secretStore,
      new SecretBatchRepository(),
      new SecretScreen(new SecretDetector()),
      await memoryWriterFor(db.tx, limits, secretStore),
      new AuditWriter(),
    );
    return new RunSecretMigrationUseCase(
      db.tx,
      new AdminJobRepository(),
      new SecretBatchRepository(),
      migrator,
      {
        batchSize,
      },
    );
  };

  /** `count` rows per user, every third one holding a generated database password. */
  const plant = async (count: number): Promise<Map<string, string>> => {
    const secrets = new Map<string, string>();
    const batch = randomBytes(4).toString('hex');
    await db.tx.asSystem(async (tx) => {
      for (const user of [alice, bob]) {
        for (let i = 0; i < count; i++) {
          const secret = `postgres://svc:${randomBytes(10).toString('base64url')}@db/app`;
          const content =
            i % 3 === 0 ? `old note ${i}: ${secret}` : `old note ${batch}-${i} for ${user.username}`;
          const { rows } = await tx.query<{ id: string }>(
            `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
             VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8'))) RETURNING id`,
            [tenant.tenantId, user.userId, content],
          );
          if (i % 3 === 0) secrets.set(rows[0].id, secret);
        }
      }
    });
    return secrets;
  };

  const rowsOf = async (ids: string[]) =>
    (
      await db.tx.asSystem((tx) =>
        tx.query<{
          id: string;
          content: string;
          is_sensitive: boolean;
          change_seq: string;
          secret_ref: string;
        }>(
          `SELECT id, content, is_sensitive, change_seq, secret_ref FROM memories WHERE id = ANY($1::bigint[])`,
          [ids],
        ),
      )
    ).rows;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 8);
    store = new VaultSecretStore({
      address: await vault.start(),
      auth: { kind: 'token', token: vault.rootToken },
      mount: 'secret',
      prefix: 'memory-service',
      timeoutMs: 1000,
    });
    tenant = await createTestTenant(db, 'migrate');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    actor = { kind: 'system', via: 'cli', tenantId: tenant.tenantId, tenantSlug: tenant.slug };
  });
  afterAll(async () => {
    store.close();
    await vault.stop();
    await db.close();
  });

  it('resumes from its checkpoint after a failed delivery and finishes with every secret moved once', async () => {
    const planted = await plant(30);
    const before = new Map((await rowsOf([...planted.keys()])).map((r) => [r.id, Number(r.change_seq)]));
    const { start, getJob } = createSecretMigrationUseCases(db.tx);
    const job = await start.execute(actor, { dryRun: false });

    const failing = await runnerWith(new FailingOnNthPut(store, 8), 5);
    await expect(
      failing.execute({ tenantId: tenant.tenantId, jobId: job.id, dryRun: false }),
    ).rejects.toThrow(/Vault went away/);
    const interrupted = await getJob.execute(actor, job.id);
    expect(interrupted.status).toBe('running');
    expect(interrupted.progress.counters?.migrated).toBeGreaterThan(0);
    expect(interrupted.progress.counters?.migrated).toBeLessThan(planted.size);

    expect(
      await (await runnerWith(store, 5)).execute({ tenantId: tenant.tenantId, jobId: job.id, dryRun: false }),
    ).toBe('succeeded');
    const done = await getJob.execute(actor, job.id);
    expect(done.progress.counters).toMatchObject({ found: planted.size, migrated: planted.size });
    expect(done.progress.failed).toBe(0);

    for (const row of await rowsOf([...planted.keys()])) {
      expect(row.is_sensitive).toBe(true);
      expect(row.content).not.toContain(planted.get(row.id));
      expect(Number(row.change_seq)).toBeGreaterThan(before.get(row.id) ?? Infinity); // sync clients see it
      const metadata = vault.kv.readMetadata(row.secret_ref).body?.data as { current_version: number };
      // The row that failed once was never written; none was written twice.
      expect(metadata.current_version).toBe(1);
    }
  });

  it('two jobs and a duplicate delivery running at once move each secret exactly once', async () => {
    const planted = await plant(45);
    const jobs = new AdminJobRepository();
    const ids = await db.tx.inTenant(alice, async (tx) => [
      (
        await jobs.insert(alice, tx, {
          kind: 'secrets.migrate',
          params: { dry_run: false },
          createdBy: null,
        })
      ).id,
      (
        await jobs.insert(alice, tx, {
          kind: 'secrets.migrate',
          params: { dry_run: false },
          createdBy: null,
        })
      ).id,
    ]);
    const runner = await runnerWith(store, 4);
    const run = (jobId: string) => runner.execute({ tenantId: tenant.tenantId, jobId, dryRun: false });
    const outcomes = await Promise.all([run(ids[0]), run(ids[1]), run(ids[0])]);
    expect(outcomes.filter((o) => o === 'succeeded').length).toBeGreaterThanOrEqual(2);

    const { getJob } = createSecretMigrationUseCases(db.tx);
    const results = await Promise.all(ids.map((id) => getJob.execute(actor, id)));
    const migrated = results.reduce((sum, j) => sum + (j.progress.counters?.migrated ?? 0), 0);
    expect(migrated).toBe(planted.size);
    for (const row of await rowsOf([...planted.keys()])) {
      expect(row.is_sensitive).toBe(true);
      const metadata = vault.kv.readMetadata(row.secret_ref).body?.data as { current_version: number };
      expect(metadata.current_version).toBe(1);
    }
    const audits = await db.tx.asSystem((tx) =>
      tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'memory.secret.migrate' AND target_id = ANY($1::text[])`,
        [[...planted.keys()]],
      ),
    );
    expect(audits.rows[0].n).toBe(planted.size);
  });

  it('a dry run reports what would move and changes nothing', async () => {
    const planted = await plant(6);
    const { start, getJob } = createSecretMigrationUseCases(db.tx);
    const job = await start.execute(actor, { dryRun: true });
    await (await runnerWith(store, 50)).execute({ tenantId: tenant.tenantId, jobId: job.id, dryRun: true });
    expect((await getJob.execute(actor, job.id)).progress.counters).toMatchObject({
      found: planted.size,
      migrated: 0,
    });
    for (const row of await rowsOf([...planted.keys()])) expect(row.is_sensitive).toBe(false);
  });

  it('refuses another tenant by name', async () => {
    const { start } = createSecretMigrationUseCases(db.tx);
    await expect(start.execute(actor, { tenant: 'someone-else', dryRun: true })).rejects.toThrow(/not found/);
  });
});
