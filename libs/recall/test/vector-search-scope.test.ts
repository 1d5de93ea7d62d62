import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EmbeddingModelRepository } from '@app/embeddings/testing';
import { MemoryVectorRepository } from '@app/recall/testing';
import { type TenantScope } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

/**
 * What the vector leg may return: own and team-visible live memories of the caller's tenant,
 * narrowed by the recall filters, in both plans; dedup queries see own memories only.
 * Hand-made 4-d vectors keep the expected order obvious.
 */
const MODEL = 'test-scope-4d';
const D = 4;
const Q = [1, 0, 0, 0];

interface Seed {
  readonly owner: TenantScope;
  readonly vector: number[];
  readonly category?: string;
  readonly tags?: string[];
  readonly project?: string;
  readonly visibility?: 'private' | 'team';
  readonly createdAt?: string;
  readonly deleted?: boolean;
}

describe('vector search scope, filters and dedup queries', () => {
  let scratch: ScratchDatabase;
  let db: TestDatabase;
  let dave: TenantScope;
  let erin: TenantScope;
  let frank: TenantScope;
  const ids: Record<string, number> = {};
  const exact = new MemoryVectorRepository({ exactScanMaxRows: 20_000 });
  const hnsw = new MemoryVectorRepository({ exactScanMaxRows: 0 });
  const plans = [
    ['exact', exact],
    ['hnsw', hnsw],
  ] as const;

  /** Inserted as the owner through the application role, so the write policies apply. */
  const seed = async (name: string, s: Seed) => {
    ids[name] = await db.tx.inTenant(s.owner, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, category, tags, project, visibility, created_at, deleted_at)
         VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')), $4, $5, $6, $7, $8, CASE WHEN $9 THEN now() END)
         RETURNING id`,
        [
          s.owner.tenantId,
          s.owner.userId,
          `memory ${name}`,
          s.category ?? 'facts',
          s.tags ?? [],
          s.project ?? null,
          s.visibility ?? 'private',
          s.createdAt ?? '2026-01-15T00:00:00Z',
          s.deleted ?? false,
        ],
      );
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
         VALUES ($1, $2, $3, $4, $5::vector, sha256(convert_to($6, 'UTF8')))`,
        [rows[0].id, MODEL, s.owner.tenantId, s.owner.userId, JSON.stringify(s.vector), name],
      );
      return Number(rows[0].id);
    });
  };
  const names = (found: { memoryId: number }[]) =>
    found.map((h) => Object.keys(ids).find((n) => ids[n] === h.memoryId) ?? `unknown ${h.memoryId}`);
  const search = (repo: MemoryVectorRepository, scope: TenantScope, filters = {}) =>
    db.tx.inTenant(scope, (tx) =>
      repo.search(scope, tx, { modelId: MODEL, dimensions: D, vector: Q, k: 10, filters }),
    );

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'vector_scope');
    db = await openTestDatabase(scratch.url, 4);
    const team = await createTestTenant(db, 'scope');
    dave = await team.addUser('dave');
    erin = await team.addUser('erin');
    frank = await (await createTestTenant(db, 'scope-other')).addUser('frank');
    await db.tx.asSystem(async (tx) => {
      const models = new EmbeddingModelRepository();
      await models.insert(tx, { id: MODEL, dimensions: D, status: 'active' });
      await models.ensureIndex(tx, { id: MODEL, dimensions: D });
    });
    await seed('d1', { owner: dave, vector: [1, 0, 0, 0], tags: ['db'], project: 'api' });
    await seed('d2', {
      owner: dave,
      vector: [0.9, 0.1, 0, 0],
      category: 'decisions',
      createdAt: '2026-03-01T00:00:00Z',
    });
    await seed('d3', { owner: dave, vector: [0, 1, 0, 0], tags: ['ops', 'db'] });
    await seed('d-deleted', { owner: dave, vector: [1, 0, 0, 0], deleted: true });
    await seed('e-team', { owner: erin, vector: [0.95, 0.2, 0, 0], visibility: 'team' });
    await seed('e-private', { owner: erin, vector: [1, 0, 0, 0.01] });
    await seed('f-team-other-tenant', { owner: frank, vector: [1, 0, 0, 0], visibility: 'team' });
  });

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it.each(plans)(
    "returns own and teammates' team memories, never private, deleted or other-tenant ones (%s)",
    async (_, repo) => {
      expect(names(await search(repo, dave))).toEqual(['d1', 'd2', 'e-team', 'd3']);
      expect(names(await search(repo, erin))).toEqual(['e-private', 'e-team']);
      expect(names(await search(repo, frank))).toEqual(['f-team-other-tenant']);
    },
  );

  it.each(plans)('applies category, tags, project and time filters (%s)', async (_, repo) => {
    expect(names(await search(repo, dave, { category: 'decisions' }))).toEqual(['d2']);
    expect(names(await search(repo, dave, { tags: ['db'] }))).toEqual(['d1', 'd3']);
    expect(names(await search(repo, dave, { project: 'api' }))).toEqual(['d1']);
    expect(names(await search(repo, dave, { since: new Date('2026-02-01T00:00:00Z') }))).toEqual(['d2']);
    expect(names(await search(repo, dave, { before: new Date('2026-02-01T00:00:00Z') }))).toEqual([
      'd1',
      'e-team',
      'd3',
    ]);
  });

  it.each(plans)('finds the nearest of own memories only, leaving one out (%s)', async (_, repo) => {
    const hits = await db.tx.inTenant(dave, (tx) =>
      repo.nearest(dave, tx, { modelId: MODEL, dimensions: D, vector: Q, k: 5, excludeId: ids.d1 }),
    );
    expect(names(hits)).toEqual(['d2', 'd3']);
    expect(hits[0].distance).toBeCloseTo(1 - 0.9 / Math.sqrt(0.82), 6);
  });

  it.each(plans)('lists near-duplicate pairs among own live memories (%s)', async (_, repo) => {
    const pairs = await db.tx.inTenant(dave, (tx) =>
      repo.nearDuplicatePairs(dave, tx, {
        modelId: MODEL,
        dimensions: D,
        threshold: 0.95,
        limit: 10,
        scanCap: 100,
      }),
    );
    expect(pairs).toHaveLength(1);
    expect(pairs[0]).toMatchObject({ firstId: Math.min(ids.d1, ids.d2), secondId: Math.max(ids.d1, ids.d2) });
    expect(pairs[0].similarity).toBeCloseTo(0.9 / Math.sqrt(0.82), 6);
  });

  it('lets owners write only their own embedding rows and hides rows without a tenant setting', async () => {
    await expect(
      db.tx.inTenant(dave, (tx) =>
        tx.query(
          `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
           VALUES ($1, $2, $3, $4, '[0,0,1,0]', sha256('x'))`,
          [ids['e-private'], MODEL, erin.tenantId, erin.userId],
        ),
      ),
    ).rejects.toThrow(/row-level security/);
    const changed = await db.tx.inTenant(dave, (tx) =>
      tx.query(`UPDATE memory_embeddings SET embedding = '[0,0,0,1]' WHERE memory_id = $1`, [ids['e-team']]),
    );
    expect(changed.rowCount).toBe(0);
    const seenByFrank = await db.tx.inTenant(frank, (tx) =>
      tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM memory_embeddings WHERE tenant_id = $1`, [
        dave.tenantId,
      ]),
    );
    expect(seenByFrank.rows[0].n).toBe(0);
    const anonymous = await db.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT set_config('role', 'memory_app', true)`);
      return manager.query(`SELECT count(*)::int AS n FROM memory_embeddings`);
    });
    expect(anonymous[0].n).toBe(0);
  });
});
