import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CreateMemoryUseCase,
  EXPORT_BATCH,
  ExportMemoriesUseCase,
  ImportMemoriesUseCase,
  importMemoriesSchema,
  toImportedMemory,
  type ExportInput,
  type NewMemory,
} from '@app/memories';
import { MemoryExportRepository } from '@app/memories/testing';
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
import { memoryWriterFor, importParts } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 1000, maxListLimit: 100 };
const SECRET = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

/** What POST /api/memories/import does with a body: null members count as absent. */
const asImport = (records: Record<string, unknown>[]) =>
  importMemoriesSchema
    .parse(records.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null))))
    .map(toImportedMemory);

describe('memory export', () => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  let carol: Principal;
  let dave: Principal;
  let create: CreateMemoryUseCase;
  let importMemories: ImportMemoriesUseCase;
  let exporter: ExportMemoriesUseCase;

  const store = async (who: Principal, content: string, overrides: Partial<NewMemory> = {}) =>
    (await create.execute(who, newMemory(content, overrides))).id;
  const exportJson = async (who: Principal, input: Partial<ExportInput> = {}) => {
    const result = await exporter.execute(who, { format: 'json', includeDeleted: false, ...input });
    return JSON.parse(await text(result.stream)) as Record<string, unknown>[];
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const tenant = await createTestTenant(db, 'export');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    carol = await memberPrincipal(tenant, 'carol');
    dave = await memberPrincipal(await createTestTenant(db, 'export-other'), 'dave');
    const secrets = new LocalSecretStore(deriveKeyEncryptionKey(randomBytes(32).toString('hex')));
    const writer = await memoryWriterFor(db.tx, limits, secrets, { defaultVisibility: 'team' });
    create = new CreateMemoryUseCase(writer);
    importMemories = new ImportMemoriesUseCase(
      writer,
      new AuditWriter(),
      new OutboxWriter(),
      limits,
      ...importParts(),
    );
    exporter = new ExportMemoriesUseCase(db.tx, new MemoryExportRepository(), new AuditWriter());
  });
  afterAll(async () => db?.close());

  it('streams every own memory in id order, across cursor batches', async () => {
    const total = EXPORT_BATCH + 7;
    const ids: number[] = [];
    for (let start = 0; start < total; start += limits.maxImportBatch) {
      const items = Array.from({ length: Math.min(limits.maxImportBatch, total - start) }, (_, i) =>
        newMemory(`bulk note ${start + i}`, { tags: [`n${start + i}`] }),
      );
      ids.push(...(await importMemories.execute(carol, items)).map((r) => r.id));
    }
    const result = await exporter.execute(carol, { format: 'jsonl', includeDeleted: false });
    expect(result.contentType).toBe('application/x-ndjson; charset=utf-8');
    const lines = (await text(result.stream)).trimEnd().split('\n');
    const exported = lines.map((l) => JSON.parse(l) as { id: number; content: string; tags: string[] });
    expect(exported.map((m) => m.id)).toEqual([...ids].sort((a, b) => a - b));
    expect(exported[5]).toMatchObject({ content: 'bulk note 5', tags: ['n5'] });
  });

  it('exports every field, links and shares, and only the redacted text of a secret', async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const older = await store(alice, 'the build used npm 9', { category: 'decisions' });
    const newer = await store(alice, 'the build uses npm 10', {
      category: 'decisions',
      tags: ['build', 'npm'],
      expandedKeywords: 'node package manager',
      importance: 0.8,
      project: 'web',
      visibility: 'private',
      expiresAt: new Date(expires),
      supersedes: older,
    });
    const secret = await store(alice, `deploy token is ${SECRET}`, { category: 'runbooks' });
    await db.tx.inTenant(alice, (tx) =>
      tx.query(
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, 'write')`,
        [newer, alice.userId, bob.userId, alice.tenantId],
      ),
    );
    const bobs = await store(bob, 'bob team note visible to alice');
    const daves = await store(dave, 'dave note in another tenant');

    const exported = await exportJson(alice);
    expect(exported.map((m) => m.id)).toEqual([older, newer, secret]);
    expect(exported[1]).toEqual({
      id: newer,
      content: 'the build uses npm 10',
      category: 'decisions',
      tags: ['build', 'npm'],
      expanded_keywords: 'node package manager',
      importance: 0.8,
      project: 'web',
      visibility: 'private',
      is_sensitive: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      updated_at: expect.any(String),
      deleted_at: null,
      expires_at: expect.any(String),
      links: [{ id: older, link_type: 'supersedes' }],
      shares: [{ username: expect.stringContaining('bob'), permission: 'write' }],
      versions: [],
    });
    expect(Date.parse(exported[1].expires_at as string)).toBe(Date.parse(expires));
    expect(exported[2]).toMatchObject({ is_sensitive: true, content: expect.stringContaining('[REDACTED:') });
    const raw = JSON.stringify(exported);
    expect(raw).not.toContain(SECRET);
    // Team-visible memories of others, and other tenants, are never part of an export.
    expect(exported.map((m) => m.id)).not.toContain(bobs);
    expect((await exportJson(bob)).map((m) => m.id)).toEqual([bobs]);
    expect((await exportJson(dave)).map((m) => m.id)).toEqual([daves]);
  });

  it('leaves deleted and expired memories out unless include_deleted', async () => {
    const user = await memberPrincipal(await createTestTenant(db, 'export-del'), 'erin');
    const kept = await store(user, 'kept note', { project: 'api' });
    const gone = await store(user, 'deleted note', { project: 'web' });
    await db.tx.inTenant(user, (tx) =>
      tx.query(`UPDATE memories SET deleted_at = now() WHERE id = $1`, [gone]),
    );
    expect((await exportJson(user)).map((m) => m.id)).toEqual([kept]);
    const all = await exportJson(user, { includeDeleted: true });
    expect(all.map((m) => m.id)).toEqual([kept, gone]);
    expect(all[1].deleted_at).toEqual(expect.any(String));
    expect((await exportJson(user, { project: 'api' })).map((m) => m.id)).toEqual([kept]);
    expect(await exportJson(user, { since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
  });

  it('re-imports an export with the very same times, and its links between the imported rows', async () => {
    const source = await memberPrincipal(await createTestTenant(db, 'export-times'), 'fay');
    const target = await memberPrincipal(await createTestTenant(db, 'export-times'), 'gus');
    const first = await store(source, 'first thing', { tags: ['a'] });
    await store(source, 'second thing', { project: 'p', visibility: 'private', supersedes: first });
    const original = await exportJson(source);
    await importMemories.execute(target, asImport(original));
    const copy = await exportJson(target);
    const comparable = (m: Record<string, unknown>) => ({ ...m, id: undefined, links: undefined });
    expect(copy.map(comparable)).toEqual(original.map(comparable));
    expect(copy[1].links).toEqual([{ id: copy[0].id, link_type: 'supersedes' }]);
    // A link to a memory outside the import is dropped, not an error.
    await importMemories.execute(target, asImport([{ ...original[1], content: 'third' }]));
    expect((await exportJson(target))[2]).toMatchObject({ content: 'third', links: [] });
  });

  it('writes markdown grouped by category', async () => {
    const user = await memberPrincipal(await createTestTenant(db, 'export-md'), 'hal');
    await store(user, 'use tabs', { category: 'preferences' });
    await store(user, 'pick postgres', { category: 'decisions' });
    await store(user, '# a heading inside', { category: 'preferences' });
    const result = await exporter.execute(user, { format: 'markdown', includeDeleted: false });
    expect(result.contentType).toBe('text/markdown; charset=utf-8');
    const doc = await text(result.stream);
    expect(doc.indexOf('## decisions')).toBeLessThan(doc.indexOf('## preferences'));
    expect(doc.match(/^## preferences$/gm)).toHaveLength(1);
    expect(doc).toContain('> # a heading inside');
  });
});
