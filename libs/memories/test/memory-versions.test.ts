import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  CreateMemoryUseCase,
  DiffMemoryVersionsUseCase,
  GetMemoryVersionUseCase,
  ImportMemoriesUseCase,
  ListMemoryVersionsUseCase,
  MemoryError,
  MemoryErrorCode,
  PurgeMemoryUseCase,
  DeleteMemoryUseCase,
  RestoreMemoryVersionUseCase,
  UpdateMemoryUseCase,
  type NewMemory,
} from '@app/memories';
import {
  MemoryReadRepository,
  MemoryVersionRepository,
  MemoryWriter,
  UserDataRepository,
} from '@app/memories/testing';
import { OutboxWriter } from '@app/jobs';
import { deriveKeyEncryptionKey, LocalSecretStore } from '@app/secrets/testing';
import { AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { importParts, memoryWritePartsFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 100, maxListLimit: 100 };
const SECRET = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';

describe('memory versions against real Postgres', () => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  let dave: Principal;
  let create: CreateMemoryUseCase;
  let update: UpdateMemoryUseCase;
  let list: ListMemoryVersionsUseCase;
  let get: GetMemoryVersionUseCase;
  let diff: DiffMemoryVersionsUseCase;
  let restore: RestoreMemoryVersionUseCase;
  let importer: ImportMemoriesUseCase;
  let writer: MemoryWriter;

  const store = async (who: Principal, content: string, overrides: Partial<NewMemory> = {}) =>
    (await create.execute(who, newMemory(content, overrides))).id;
  const page = { limit: 50 };
  const failure = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MemoryError);
    return (error as MemoryError).code;
  };
  const versionRows = (who: Principal, id: number) =>
    db.tx.inTenant(who, async (tx) => {
      const { rows } = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM memory_versions WHERE memory_id = $1`,
        [id],
      );
      return rows[0].n;
    });

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const tenant = await createTestTenant(db, 'versions');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    dave = await memberPrincipal(await createTestTenant(db, 'versions-other'), 'dave');
    const secrets = new LocalSecretStore(deriveKeyEncryptionKey(randomBytes(32).toString('hex')));
    const parts = await memoryWritePartsFor(db.tx, limits, secrets, { defaultVisibility: 'team' });
    writer = parts.writer;
    create = new CreateMemoryUseCase(writer);
    update = new UpdateMemoryUseCase(writer);
    const reads = new MemoryReadRepository();
    const versions = new MemoryVersionRepository();
    list = new ListMemoryVersionsUseCase(db.tx, reads, versions);
    get = new GetMemoryVersionUseCase(db.tx, reads, versions);
    diff = new DiffMemoryVersionsUseCase(db.tx, reads, versions);
    restore = new RestoreMemoryVersionUseCase(db.tx, reads, versions, parts.update);
    importer = new ImportMemoriesUseCase(
      writer,
      new AuditWriter(),
      new OutboxWriter(),
      limits,
      ...importParts(),
    );
  });
  afterAll(async () => db?.close());

  it('keeps the previous state of every versioned change, newest first, with who and what', async () => {
    const id = await store(alice, 'line one\nline two', { tags: ['a'], category: 'facts' });
    expect(await list.execute(alice, id, page)).toEqual([]);
    await update.execute(alice, id, { content: 'line one\nline 2' });
    await update.execute(alice, id, { tags: ['a', 'b'], importance: 0.9 });
    // Keywords and expiry are not versioned; a change to the same value is no change.
    await update.execute(alice, id, { expandedKeywords: 'more words' });
    await update.execute(alice, id, { category: 'facts' });
    await update.execute(alice, id, { visibility: 'private' });

    const versions = await list.execute(alice, id, page);
    expect(versions.map((v) => [v.version, v.changedFields])).toEqual([
      [3, ['visibility']],
      [2, ['tags', 'importance']],
      [1, ['content']],
    ]);
    expect(versions[2]).toMatchObject({
      memoryId: id,
      content: 'line one\nline two',
      tags: ['a'],
      importance: 0.5,
      visibility: 'team',
      isSensitive: false,
      authorId: alice.userId,
      replacedBy: alice.userId,
    });
    expect(versions[0]).toMatchObject({ content: 'line one\nline 2', tags: ['a', 'b'], importance: 0.9 });
    expect(Date.parse(versions[0].replacedAt)).toBeGreaterThanOrEqual(Date.parse(versions[0].validFrom));
    expect((await list.execute(alice, id, { limit: 2, before: 3 })).map((v) => v.version)).toEqual([2, 1]);
    expect((await get.execute(alice, id, 2)).tags).toEqual(['a']);
    expect(await failure(get.execute(alice, id, 9))).toBe(MemoryErrorCode.VersionNotFound);

    const changed = await diff.execute(alice, id, 1, 'current');
    expect(changed.changedFields).toEqual(['content', 'tags', 'importance', 'visibility']);
    expect(changed.lines).toEqual([
      { op: 'equal', text: 'line one' },
      { op: 'delete', text: 'line two' },
      { op: 'insert', text: 'line 2' },
    ]);
    expect(changed.unified).toContain('-line two\n+line 2');
    expect(changed.fields).toContainEqual({ field: 'importance', from: 0.5, to: 0.9 });
    expect((await diff.execute(alice, id, 2, 3)).changedFields).toEqual(['tags', 'importance']);
  });

  it('follows the memory’s visibility: 404 to who cannot see it, nothing across tenants', async () => {
    const id = await store(alice, 'private history', { visibility: 'private' });
    await update.execute(alice, id, { content: 'private history, edited' });
    expect(await failure(list.execute(bob, id, page))).toBe(MemoryErrorCode.NotFound);
    expect(await failure(diff.execute(bob, id, 1, 'current'))).toBe(MemoryErrorCode.NotFound);
    expect(await failure(restore.execute(bob, id, 1))).toBe(MemoryErrorCode.NotFound);
    expect(await failure(list.execute(dave, id, page))).toBe(MemoryErrorCode.NotFound);
    // Row-level security says the same underneath the repository.
    expect(await versionRows(alice, id)).toBe(1);
    expect(await versionRows(bob, id)).toBe(0);
    expect(await versionRows(dave, id)).toBe(0);
    const leaked = await db.tx.inTenant(bob, (tx) => new MemoryVersionRepository().list(alice, tx, id, page));
    expect(leaked).toEqual([]);
  });

  it('lets a teammate read a team memory’s versions but not restore one (403)', async () => {
    const id = await store(alice, 'team history');
    await update.execute(alice, id, { content: 'team history v2' });
    expect((await list.execute(bob, id, page)).map((v) => v.version)).toEqual([1]);
    expect(await failure(restore.execute(bob, id, 1))).toBe(MemoryErrorCode.Forbidden);
  });

  it('restores a version as a new change through the update path, audited as a restore', async () => {
    const id = await store(alice, 'first words', { tags: ['x'] });
    await update.execute(alice, id, { content: 'second words', tags: ['y'] });
    await update.execute(alice, id, { content: 'third words' });
    const restored = await restore.execute(alice, id, 1);
    expect(restored).toEqual({ memoryId: id, restored: 1, changedFields: ['content', 'tags'] });
    const versions = await list.execute(alice, id, page);
    expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(versions[0]).toMatchObject({ content: 'third words', changedFields: ['content', 'tags'] });
    expect((await diff.execute(alice, id, 1, 'current')).changedFields).toEqual([]);
    // Already in that state: nothing to change, no new version.
    expect((await restore.execute(alice, id, 1)).changedFields).toEqual([]);
    expect(await versionRows(alice, id)).toBe(3);
    const audit = await db.tx.asSystem(async (tx) => {
      const { rows } = await tx.query<{ details: Record<string, unknown> }>(
        `SELECT details FROM audit_log WHERE action = 'memory.version.restore' AND target_id = $1`,
        [String(id)],
      );
      return rows;
    });
    expect(audit).toEqual([{ details: expect.objectContaining({ restored: 1, version: 3 }) }]);
    // The duplicate rule applies: another memory of alice's with that text refuses the restore.
    await store(alice, 'second words');
    expect(await failure(restore.execute(alice, id, 2))).toBe(MemoryErrorCode.DuplicateContent);
  });

  it('keeps only redacted text of a secret, and will not restore a lost secret', async () => {
    const id = await store(alice, 'plain start');
    await update.execute(alice, id, { content: `deploy token is ${SECRET}` });
    await update.execute(alice, id, { content: 'no secret any more' });
    const versions = await list.execute(alice, id, page);
    expect(versions[0]).toMatchObject({ version: 2, isSensitive: true });
    expect(versions[0].content).toContain('[REDACTED:');
    const raw = await db.tx.asSystem(async (tx) => {
      const { rows } = await tx.query(`SELECT * FROM memory_versions WHERE memory_id = $1`, [id]);
      return JSON.stringify(rows);
    });
    expect(raw).not.toContain(SECRET);
    expect(await failure(restore.execute(alice, id, 2))).toBe(MemoryErrorCode.VersionSecretLost);

    // A row stored in clear before secret screening: its version keeps the redacted text only.
    const legacy = await store(alice, 'legacy note');
    await db.tx.asSystem((tx) =>
      tx.query(`UPDATE memories SET content = $2 WHERE id = $1`, [legacy, `old token ${SECRET}`]),
    );
    await update.execute(alice, legacy, { tags: ['moved'] });
    const [kept] = await list.execute(alice, legacy, page);
    expect(kept).toMatchObject({ version: 1, isSensitive: true, changedFields: ['tags'] });
    expect(kept.content).toContain('[REDACTED:');
    expect(kept.content).not.toContain(SECRET);
  });

  it('goes with its memory on purge and on a user’s erasure', async () => {
    const purged = await store(alice, 'to be purged');
    await update.execute(alice, purged, { content: 'to be purged soon' });
    await new DeleteMemoryUseCase(writer).execute(alice, purged);
    await new PurgeMemoryUseCase(writer).execute(alice, purged);
    expect(
      await db.tx.asSystem(
        async (tx) =>
          (await tx.query(`SELECT 1 FROM memory_versions WHERE memory_id = $1`, [purged])).rows.length,
      ),
    ).toBe(0);

    const tenant = await createTestTenant(db, 'versions-erase');
    const erin = await memberPrincipal(tenant, 'erin');
    const finn = await memberPrincipal(tenant, 'finn');
    const own = await store(erin, 'erin note');
    await update.execute(erin, own, { content: 'erin note v2' });
    const finns = await store(finn, 'finn shared note');
    await db.tx.inTenant(finn, (tx) =>
      tx.query(
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, 'write')`,
        [finns, finn.userId, erin.userId, finn.tenantId],
      ),
    );
    await update.execute(erin, finns, { content: 'finn shared note, erin wrote this' });
    await update.execute(finn, finns, { content: 'finn shared note, finn again' });
    const erased = await db.tx.asSystem((tx) =>
      new UserDataRepository().erase(tx, { tenantId: erin.tenantId, userId: erin.userId }),
    );
    // Her memory's version, and the state she wrote into finn's memory.
    expect(erased.versions).toBe(2);
    const left = await db.tx.asSystem(async (tx) => {
      const { rows } = await tx.query<{ content: string }>(
        `SELECT content FROM memory_versions WHERE tenant_id = $1 ORDER BY version`,
        [erin.tenantId],
      );
      return rows.map((r) => r.content);
    });
    expect(left).toEqual(['finn shared note']);
  });

  it('carries versions through export and import, screened again', async () => {
    const target = await memberPrincipal(await createTestTenant(db, 'versions-import'), 'gus');
    const [stored] = await importer.execute(target, [
      {
        ...newMemory('imported now'),
        versions: [
          {
            version: 1,
            content: `old text with ${SECRET}`,
            category: 'facts',
            tags: ['t'],
            importance: 0.5,
            project: null,
            visibility: 'team',
            isSensitive: false,
            validFrom: '2025-01-01T00:00:00.000000+00:00',
            replacedAt: '2025-01-02T00:00:00.000000+00:00',
            changedFields: ['content'],
          },
        ],
      },
    ]);
    const versions = await list.execute(target, stored.id, page);
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({
      version: 1,
      isSensitive: true,
      authorId: target.userId,
      validFrom: '2025-01-01T00:00:00.000000+00:00',
      changedFields: ['content'],
    });
    expect(versions[0].content).not.toContain(SECRET);
    // The same import again finds the memory as a duplicate, which keeps its versions once.
    await importer.execute(target, [
      { ...newMemory('imported now'), versions: [{ ...versions[0], version: 7 }] },
    ]);
    expect((await list.execute(target, stored.id, page)).map((v) => v.version)).toEqual([1]);
  });
});
