import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { hnswIndexName, MaintainTenantIndexesUseCase, tenantHnswIndexName } from '@app/embeddings';
import { EmbeddingModelRepository, TenantVectorIndexRepository } from '@app/embeddings/testing';
import { efSearchFor, LARGE_HNSW_ROWS, MemoryVectorRepository } from '@app/recall/testing';
import { type TenantScope } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

/**
 * Per-tenant HNSW indexes against real Postgres + pgvector: the maintenance run builds an index for
 * a tenant past VECTOR_TENANT_INDEX_MIN_ROWS (not for a small one, nor for one that is nearly the
 * whole model), recall's walk then uses it (and
 * answers as the exact scan does, only with what the caller may read), a failed build is dropped
 * and built again, one run at a time holds the lock, and an index is dropped when its tenant shrinks
 * below half the threshold or its model is retired.
 */
const MODEL = 'tenant-index-16d';
const D = 16;
const MIN_ROWS = 400;

describe('per-tenant vector indexes', () => {
  let scratch: ScratchDatabase;
  let db: TestDatabase;
  let big: { member: TenantScope; other: TenantScope; tenantId: string };
  let small: { member: TenantScope; tenantId: string };
  let smallOther: TenantScope;
  let maintain: MaintainTenantIndexesUseCase;
  const exact = new MemoryVectorRepository({ exactScanMaxRows: 1_000_000 });
  const walk = new MemoryVectorRepository({ exactScanMaxRows: 0 });
  let batches = 0;

  /** `count` memories, 1 in 5 private to `other`, each with a random vector. */
  const load = async (tenantId: string, member: TenantScope, other: TenantScope, count: number) => {
    await db.tx.asSystem(async (tx) => {
      await tx.query(`SELECT setseed(0.5)`);
      await tx.query(
        `WITH m AS (
           INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility)
           SELECT $1::uuid, CASE WHEN i % 5 = 0 THEN $3::uuid ELSE $2::uuid END, c, sha256(convert_to(c, 'UTF8')),
                  CASE WHEN i % 5 = 0 THEN 'private' ELSE 'team' END
             FROM generate_series(1, $4::int) i, LATERAL (SELECT 'memory ' || i || ' of ' || $1 || ' batch ' || $6 AS c) x
           RETURNING id, tenant_id, owner_id, content_hash)
         INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
         SELECT m.id, $5, m.tenant_id, m.owner_id,
                (SELECT array_agg(random() * 2 - 1) FROM generate_series(1, ${D} + m.id * 0))::vector, m.content_hash
           FROM m`,
        [tenantId, member.userId, other.userId, count, MODEL, (batches += 1)],
      );
    });
  };

  const indexNames = async () =>
    (await db.tx.asSystem((tx) => new TenantVectorIndexRepository().list(tx))).map((i) => i.name);

  /**
   * Share of the exact top 10 the walk finds for the big tenant's member over 20 queries, each walk
   * of the expected kind and only with rows the caller may read (the exact scan's set).
   */
  const walkQuality = async (kind: string) => {
    let found = 0;
    const queries = 20;
    for (let q = 0; q < queries; q += 1) {
      const input = { modelId: MODEL, dimensions: D, vector: randomVector(q + 2), k: 10 };
      const [walked, reference] = await db.tx.inTenant(big.member, async (tx) => [
        await walk.searchDetailed(big.member, tx, input),
        await exact.searchDetailed(big.member, tx, { ...input, k: 1_000 }),
      ]);
      expect(walked).toMatchObject({ plan: 'hnsw', index: kind, exactFallback: false });
      const readable = new Set(reference.hits.map((h) => h.memoryId));
      for (const hit of walked.hits) expect(readable.has(hit.memoryId)).toBe(true);
      const top = new Set(reference.hits.slice(0, 10).map((h) => h.memoryId));
      found += walked.hits.filter((h) => top.has(h.memoryId)).length;
    }
    return found / (queries * 10);
  };

  const randomVector = (seed: number) => Array.from({ length: D }, (_, i) => Math.sin(seed * 7.3 + i * 1.9));

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'tenant_vector_indexes');
    db = await openTestDatabase(scratch.url, 3);
    const bigTenant = await createTestTenant(db, 'big');
    const smallTenant = await createTestTenant(db, 'small');
    big = {
      tenantId: bigTenant.tenantId,
      member: await bigTenant.addUser('member'),
      other: await bigTenant.addUser('other'),
    };
    const smallMember = await smallTenant.addUser('member');
    small = { tenantId: smallTenant.tenantId, member: smallMember };
    await db.tx.asSystem(async (tx) => {
      await tx.query(`INSERT INTO embedding_models (id, dimensions, status) VALUES ($1, $2, 'active')`, [
        MODEL,
        D,
      ]);
      await new EmbeddingModelRepository().ensureIndex(tx, { id: MODEL, dimensions: D });
    });
    await load(big.tenantId, big.member, big.other, 1_000);
    smallOther = await smallTenant.addUser('other');
    const config = loadConfig({ DATABASE_URL: scratch.url, VECTOR_TENANT_INDEX_MIN_ROWS: String(MIN_ROWS) });
    maintain = new MaintainTenantIndexesUseCase(
      db.tx,
      new TenantVectorIndexRepository(),
      new EmbeddingModelRepository(),
      config,
    );
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('builds an index for the tenant past the threshold only, and a second run finds nothing to do', async () => {
    // Alone, the big tenant is the whole model: the shared index is already its own, and it says so.
    expect(await maintain.execute()).toEqual({ ran: true, built: [], dropped: [] });
    const alone = await db.tx.inTenant(big.member, (tx) =>
      walk.searchDetailed(big.member, tx, { modelId: MODEL, dimensions: D, vector: randomVector(9), k: 10 }),
    );
    expect(alone).toMatchObject({ plan: 'hnsw', index: 'dominant' });
    expect(await walkQuality('dominant')).toBeGreaterThanOrEqual(0.95);
    await load(small.tenantId, small.member, smallOther, 300);
    const first = await maintain.execute();
    expect(first).toEqual({ ran: true, built: [tenantHnswIndexName(MODEL, big.tenantId)], dropped: [] });
    expect(await indexNames()).toEqual([tenantHnswIndexName(MODEL, big.tenantId)]);
    const listed = await db.tx.asSystem((tx) => new TenantVectorIndexRepository().list(tx));
    expect(listed[0]).toMatchObject({ valid: true, modelId: MODEL, tenantId: big.tenantId });
    expect(await maintain.execute()).toEqual({ ran: true, built: [], dropped: [] });
  });

  it("walks the tenant's own index, answers as the exact scan does, and only with what the caller may read", async () => {
    const vector = randomVector(1);
    const plan = await db.tx.inTenant(big.member, (tx) =>
      walk.explain(big.member, tx, { modelId: MODEL, dimensions: D, vector, k: 10 }, 'hnsw'),
    );
    expect(plan).toMatch(new RegExp(`Index Scan using ${tenantHnswIndexName(MODEL, big.tenantId)}`));
    const smallPlan = await db.tx.inTenant(small.member, (tx) =>
      walk.explain(small.member, tx, { modelId: MODEL, dimensions: D, vector, k: 10 }, 'hnsw'),
    );
    expect(smallPlan).toMatch(new RegExp(`Index Scan using ${hnswIndexName(MODEL)}`));

    expect(await walkQuality('tenant')).toBeGreaterThanOrEqual(0.95);

    // Once the big tenant no longer holds most of the model, no tenant is marked on the shared index.
    const other = await db.tx.inTenant(small.member, (tx) =>
      walk.searchDetailed(small.member, tx, { modelId: MODEL, dimensions: D, vector, k: 10 }),
    );
    expect(other.index).toBe('model');
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ comment: string | null }>(`SELECT obj_description($1::regclass, 'pg_class') AS comment`, [
        hnswIndexName(MODEL),
      ]),
    );
    expect(rows[0].comment).toBeNull();
  });

  it('walks an index the statistics count at 500,000 rows or more with a candidate list twice as long', async () => {
    const own = tenantHnswIndexName(MODEL, big.tenantId);
    const walkedWith = () =>
      db.tx.inTenant(big.member, async (tx) => {
        const result = await walk.searchDetailed(big.member, tx, {
          modelId: MODEL,
          dimensions: D,
          vector: randomVector(3),
          k: 10,
        });
        const { rows } = await tx.query<{ ef: string }>(`SELECT current_setting('hnsw.ef_search') AS ef`);
        return { index: result.index, ef: Number(rows[0].ef), hits: result.hits.length };
      });
    expect(await walkedWith()).toEqual({ index: 'tenant', ef: efSearchFor(10, 'tenant'), hits: 10 });
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)`, [own]),
    );
    // The estimate the walk reads, as ANALYZE would leave it for a graph that size.
    const setEstimate = (rowsEstimate: number) =>
      db.tx.asSystem((tx) =>
        tx.query(`UPDATE pg_class SET reltuples = $2 WHERE oid = to_regclass($1)`, [own, rowsEstimate]),
      );
    await setEstimate(LARGE_HNSW_ROWS);
    try {
      expect(await walkedWith()).toEqual({ index: 'tenant', ef: 2 * efSearchFor(10, 'tenant'), hits: 10 });
    } finally {
      await setEstimate(rows[0].reltuples);
    }
  });

  it('does nothing while another run holds the lock', async () => {
    const holder = new Client({ connectionString: scratch.url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock($1)`, [MaintainTenantIndexesUseCase.LOCK_KEY]);
      expect(await maintain.execute()).toEqual({ ran: false, built: [], dropped: [] });
    } finally {
      await holder.end();
    }
  });

  it('leaves an index that lost a deadlock to concurrent DDL for the next run, and fails on other errors', async () => {
    const failing = (error: Error) =>
      new MaintainTenantIndexesUseCase(
        db.tx,
        new (class extends TenantVectorIndexRepository {
          override async drop(): Promise<void> {
            throw error;
          }
        })(),
        new EmbeddingModelRepository(),
        loadConfig({ DATABASE_URL: scratch.url, VECTOR_TENANT_INDEX_MIN_ROWS: '0' }),
      );
    const name = tenantHnswIndexName(MODEL, big.tenantId);
    // Threshold 0 wants every index dropped; the drop loses a deadlock, so the index stays.
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    expect(await failing(deadlock).execute()).toEqual({ ran: true, built: [], dropped: [] });
    expect(await indexNames()).toEqual([name]);
    await expect(failing(new Error('disk full')).execute()).rejects.toThrow('disk full');
    // The lock was let go with the failed run's connection.
    expect((await maintain.execute()).ran).toBe(true);
  });

  it('drops a failed build and builds it again', async () => {
    const name = tenantHnswIndexName(MODEL, big.tenantId);
    // What a build killed half way leaves behind: the index, marked invalid.
    await db.dataSource.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = $1::regclass`, [
      name,
    ]);
    const walked = await db.tx.inTenant(big.member, (tx) =>
      walk.searchDetailed(big.member, tx, { modelId: MODEL, dimensions: D, vector: randomVector(3), k: 10 }),
    );
    expect(walked.index).toBe('model');
    expect(walked.hits).toHaveLength(10);
    expect(await maintain.execute()).toEqual({ ran: true, built: [name], dropped: [name] });
    expect(await indexNames()).toEqual([name]);
  });

  it('keeps an index above half the threshold, drops it below, and drops all when the model is retired', async () => {
    const name = tenantHnswIndexName(MODEL, big.tenantId);
    const shrink = (to: number) =>
      db.tx.asSystem((tx) =>
        tx.query(
          `DELETE FROM memory_embeddings WHERE tenant_id = $1 AND memory_id IN (
             SELECT memory_id FROM memory_embeddings WHERE tenant_id = $1 ORDER BY memory_id
             OFFSET $2)`,
          [big.tenantId, to],
        ),
      );
    await shrink(MIN_ROWS - 50);
    expect(await maintain.execute()).toEqual({ ran: true, built: [], dropped: [] });
    await shrink(MIN_ROWS / 2 - 1);
    expect(await maintain.execute()).toEqual({ ran: true, built: [], dropped: [name] });
    expect(await indexNames()).toEqual([]);

    await load(big.tenantId, big.member, big.other, 600);
    expect((await maintain.execute()).built).toEqual([name]);
    await db.tx.asSystem((tx) =>
      tx.query(`UPDATE embedding_models SET status = 'retired' WHERE id = $1`, [MODEL]),
    );
    expect(await maintain.execute()).toEqual({ ran: true, built: [], dropped: [name] });
    expect(await indexNames()).toEqual([]);
  });
});
