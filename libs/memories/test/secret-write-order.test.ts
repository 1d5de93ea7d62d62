import { OutboxWriter } from '@app/jobs';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  ImportMemoriesUseCase,
  PurgeMemoryUseCase,
  SweepSecretsUseCase,
} from '@app/memories';
import { SecretCleanupRepository } from '@app/memories/testing';
import { type MemoryWriter, type SecretStaging } from '@app/memories/testing';
import { VaultSecretStore } from '@app/secrets/testing';
import { AuditWriter, MEMBER_SCOPES, type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase, newMemory } from '@app/testing';
import { FakeVault } from '@app/testing';
import { memoryWritePartsFor, importParts } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };
const memory = newMemory;
const dbUrl = () => `postgres://deploy:${randomUUID().slice(0, 12)}@db:5432/app`;

/**
 * Write order with a real Vault client against the fake Vault and real Postgres: the secret is
 * stored first, the row committed second; whatever a failed commit leaves in Vault is deleted at
 * once, or by the cleanup job when Vault cannot be reached at that moment.
 */
describe('secret write order and orphan cleanup', () => {
  const vault = new FakeVault();
  let db: TestDatabase;
  let store: VaultSecretStore;
  let alice: Principal;
  let create: CreateMemoryUseCase;
  let importer: ImportMemoriesUseCase;
  let sweep: SweepSecretsUseCase;
  let writer: MemoryWriter;
  let staging: SecretStaging;
  let remove: DeleteMemoryUseCase;
  let purge: PurgeMemoryUseCase;

  const vaultKeys = () =>
    (
      vault.kv.list(`memory-service/${alice.tenantId}/${alice.userId}`).body?.data as
        { keys?: string[] } | undefined
    )?.keys ?? [];
  const intents = async () =>
    (
      await db.tx.asSystem((tx) =>
        tx.query<{ memory_id: string; due: boolean }>(
          `SELECT memory_id, not_before <= now() AS due FROM secret_cleanup WHERE owner_id = $1 ORDER BY id`,
          [alice.userId],
        ),
      )
    ).rows;
  const makeDue = () =>
    db.tx.asSystem((tx) =>
      tx.query(`UPDATE secret_cleanup SET not_before = now() WHERE owner_id = $1`, [alice.userId]),
    );

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 6);
    store = new VaultSecretStore({
      address: await vault.start(),
      auth: { kind: 'token', token: vault.rootToken },
      mount: 'secret',
      prefix: 'memory-service',
      timeoutMs: 500,
    });
    ({ writer, staging } = await memoryWritePartsFor(db.tx, limits, store));
    create = new CreateMemoryUseCase(writer);
    importer = new ImportMemoriesUseCase(
      writer,
      new AuditWriter(),
      new OutboxWriter(),
      limits,
      ...importParts(),
    );
    remove = new DeleteMemoryUseCase(writer);
    purge = new PurgeMemoryUseCase(writer);
    sweep = new SweepSecretsUseCase(db.tx, new SecretCleanupRepository(), store);
    const tenant = await createTestTenant(db, 'secret-order');
    alice = {
      ...(await tenant.addUser('alice')),
      tenantSlug: tenant.slug,
      keyId: randomUUID(),
      scopes: MEMBER_SCOPES,
    };
  });
  afterEach(() => vault.resetFaults());
  afterAll(async () => {
    store.close();
    await vault.stop();
    await db.close();
  });

  it('a committed write leaves its secret in Vault under the row id and no cleanup entry', async () => {
    const { id } = await create.execute(alice, memory(`prod: ${dbUrl()}`));
    expect(vaultKeys()).toContain(`mem-${id}`);
    expect(await intents()).toEqual([]);
  });

  it('a failed commit deletes the secrets it had already written', async () => {
    const before = vaultKeys();
    // The second row violates the importance check when inserted, after both secrets are in Vault.
    await expect(
      importer.execute(alice, [memory(`a: ${dbUrl()}`), memory(`b: ${dbUrl()}`, { importance: 5 })]),
    ).rejects.toThrow(/importance/);
    expect(vaultKeys()).toEqual(before);
    expect(await intents()).toEqual([]);
  });

  it('when Vault is unreachable during that cleanup, the cleanup job deletes the orphan later', async () => {
    const before = vaultKeys();
    const staged = await staging.stage(alice, `orphan: ${dbUrl()}`);
    expect(vaultKeys()).toContain(`mem-${staged.memoryId}`);
    vault.faults.sealed = true;
    await staging.discard(alice, [staged]); // never throws; Vault refused the delete
    vault.faults.sealed = false;
    expect(await intents()).toEqual([{ memory_id: String(staged.memoryId), due: false }]);

    expect(await sweep.execute()).toEqual({ deleted: 0, kept: 0 }); // not due yet: a write may still commit
    await makeDue();
    expect(await sweep.execute()).toEqual({ deleted: 1, kept: 0 });
    expect(vaultKeys()).toEqual(before);
    expect(await intents()).toEqual([]);
  });

  it('keeps a secret a committed row still points at (an update whose transaction failed)', async () => {
    const { id } = await create.execute(alice, memory(`v1: ${dbUrl()}`));
    await staging.stage(alice, `v2: ${dbUrl()}`, { id, owner: alice }); // new version written, row never updated
    await makeDue();
    expect(await sweep.execute()).toEqual({ deleted: 0, kept: 1 });
    expect(vaultKeys()).toContain(`mem-${id}`);
  });

  it('purging a sensitive memory deletes its secret through the cleanup job', async () => {
    const { id } = await create.execute(alice, memory(`purge me: ${dbUrl()}`));
    await remove.execute(alice, id);
    expect(vaultKeys()).toContain(`mem-${id}`); // a soft delete can be restored: the secret stays
    await purge.execute(alice, id);
    expect(await intents()).toEqual([{ memory_id: String(id), due: true }]);
    expect(await sweep.execute()).toEqual({ deleted: 1, kept: 0 });
    expect(vaultKeys()).not.toContain(`mem-${id}`);
  });
});
