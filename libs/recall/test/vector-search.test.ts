import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EmbeddingModelRepository } from '@app/embeddings/testing';
import { MemoryVectorRepository } from '@app/recall/testing';
import { type VectorHit } from '@app/recall';
import { hnswIndexName } from '@app/embeddings';
import { type TenantScope } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

/**
 * Acceptance 1: alice owns 1,000 of 101,000 vectors (1% of a shared HNSW index). Her vector
 * search returns k of her own rows through the index (iterative scan) and never anyone else's;
 * the exact plan returns the true top-k; the index path's recall@10 against exact is reported.
 */
const MODEL = 'test-vectors-100d';
const D = 100;
const ALICE_ROWS = 1_000;
const OTHER_ROWS = 100_000;
const OTHER_USERS = 100;
const CLUSTERS = 64;
const K = 10;
const QUERIES = 25;

/** Small deterministic PRNG (mulberry32), so the queries are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const parseVector = (text: string): number[] => JSON.parse(text) as number[];

function cosineDistance(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return 1 - dot / Math.sqrt(na * nb);
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

describe('tenant-safe vector search at 1% selectivity (100k other rows)', () => {
  let scratch: ScratchDatabase;
  let db: TestDatabase;
  let alice: TenantScope;
  let bob: TenantScope;
  let outsider: TenantScope;
  const aliceVectors = new Map<number, number[]>();
  const queries: number[][] = [];
  const exactRepo = new MemoryVectorRepository({ exactScanMaxRows: 20_000 });
  const hnswRepo = new MemoryVectorRepository({ exactScanMaxRows: 0 });
  const input = (vector: number[]) => ({ modelId: MODEL, dimensions: D, vector, k: K });

  /** Ground truth: alice's k nearest by brute force in JS. */
  const truth = (query: number[]): number[] =>
    [...aliceVectors]
      .map(([id, v]) => ({ id, d: cosineDistance(query, v) }))
      .sort((x, y) => x.d - y.d)
      .slice(0, K)
      .map((h) => h.id);

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'vector_search');
    db = await openTestDatabase(scratch.url, 4);

    const home = await createTestTenant(db, 'vec');
    alice = await home.addUser('alice');
    const others: TenantScope[] = [];
    // 20 of the other users share alice's tenant (private rows); 80 live in four other tenants.
    for (let t = 0; t < 5; t += 1) {
      const tenant = t === 0 ? home : await createTestTenant(db, `vec${t}`);
      for (let u = 0; u < OTHER_USERS / 5; u += 1) others.push(await tenant.addUser(`user-${t}-${u}`));
    }
    bob = others[0];
    outsider = others[OTHER_USERS - 1];

    const started = Date.now();
    await db.tx.asSystem(async (tx) => {
      // The bulk load runs the per-row sync trigger 101k times; it may outlast the pool's statement timeout.
      await tx.query(`SET LOCAL statement_timeout = 0`);
      await tx.query(`INSERT INTO embedding_models (id, dimensions, status) VALUES ($1, $2, 'active')`, [
        MODEL,
        D,
      ]);
      await tx.query(`SELECT setseed(0.42)`);
      await tx.query(
        `CREATE TEMP TABLE centers ON COMMIT DROP AS
           SELECT c, array_agg(random() * 2 - 1 ORDER BY d) AS v
             FROM generate_series(0, ${CLUSTERS - 1}) c CROSS JOIN generate_series(1, ${D}) d GROUP BY c`,
      );
      // Row i belongs to alice for i ≤ 1000, else to other user i % 100; clusters are shared by everyone.
      await tx.query(
        `CREATE TEMP TABLE gen ON COMMIT DROP AS
           SELECT i, (i * 7919) % ${CLUSTERS} AS c,
                  CASE WHEN i <= ${ALICE_ROWS} THEN $1::uuid ELSE (o.ids)[1 + i % ${OTHER_USERS}] END AS tenant_id,
                  CASE WHEN i <= ${ALICE_ROWS} THEN $2::uuid ELSE (o.ids)[1 + i % ${OTHER_USERS} + ${OTHER_USERS}] END AS owner_id
             FROM generate_series(1, ${ALICE_ROWS + OTHER_ROWS}) i, (SELECT $3::uuid[] AS ids) o`,
        [alice.tenantId, alice.userId, [...others.map((o) => o.tenantId), ...others.map((o) => o.userId)]],
      );
      await tx.query(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
         SELECT tenant_id, owner_id, 'synthetic memory ' || i, sha256(convert_to('synthetic memory ' || i, 'UTF8'))
           FROM gen ORDER BY i`,
      );
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
         SELECT m.id, $1, m.tenant_id, m.owner_id,
                (SELECT array_agg(c.v[d] + (random() * 2 - 1) * 0.8 ORDER BY d) FROM generate_series(1, ${D}) d)::vector,
                sha256(convert_to(m.content, 'UTF8'))
           FROM gen g
           JOIN memories m ON m.owner_id = g.owner_id AND m.content = 'synthetic memory ' || g.i
           JOIN centers c ON c.c = g.c
          ORDER BY g.i`,
        [MODEL],
      );
    });
    const inserted = Date.now();
    // Building the graph once after the bulk load is much faster than inserting into it row by row.
    await db.tx.asSystem(async (tx) => {
      await tx.query(`SET LOCAL maintenance_work_mem = '512MB'`);
      // A busy machine can take longer than the pool's statement timeout to build the graph.
      await tx.query(`SET LOCAL statement_timeout = 0`);
      await new EmbeddingModelRepository().ensureIndex(tx, { id: MODEL, dimensions: D });
    });
    const indexed = Date.now();
    await db.dataSource.query(`ANALYZE memories`);
    await db.dataSource.query(`ANALYZE memory_embeddings`);
    console.info(
      `[vector-search] inserted ${ALICE_ROWS + OTHER_ROWS} memories + embeddings in ${inserted - started} ms; ` +
        `HNSW index (m=16, ef_construction=64) built in ${indexed - inserted} ms`,
    );

    const rows = await db.tx.asSystem((tx) =>
      tx.query<{ id: string; v: string }>(
        `SELECT memory_id AS id, embedding::text AS v FROM memory_embeddings WHERE owner_id = $1 AND model_id = $2`,
        [alice.userId, MODEL],
      ),
    );
    for (const r of rows.rows) aliceVectors.set(Number(r.id), parseVector(r.v));
    const random = prng(7);
    const ids = [...aliceVectors.keys()].sort((x, y) => x - y);
    for (let q = 0; q < QUERIES; q += 1) {
      const base = aliceVectors.get(ids[Math.floor((q * ids.length) / QUERIES)]) as number[];
      queries.push(base.map((x) => x + (random() - 0.5) * 0.2));
    }
  });

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('has alice at 1% of the rows in the model index', () => {
    expect(aliceVectors.size).toBe(ALICE_ROWS);
  });

  it('answers with the exact plan below the threshold, returning the true top-k of her own rows', async () => {
    const latencies: number[] = [];
    for (const query of queries) {
      const started = performance.now();
      const result = await db.tx.inTenant(alice, (tx) => exactRepo.searchDetailed(alice, tx, input(query)));
      latencies.push(performance.now() - started);
      expect(result.plan).toBe('exact');
      expect(result.hits.map((h) => h.memoryId)).toEqual(truth(query));
    }
    console.info(
      `[vector-search] exact plan: median ${median(latencies).toFixed(1)} ms per search (incl. transaction)`,
    );
  });

  it('answers through HNSW with iterative scan: k of her own rows, recall@10 >= 0.9 against exact', async () => {
    const latencies: number[] = [];
    let found = 0;
    for (const query of queries) {
      const started = performance.now();
      const result = await db.tx.inTenant(alice, (tx) => hnswRepo.searchDetailed(alice, tx, input(query)));
      latencies.push(performance.now() - started);
      expect(result.plan).toBe('hnsw');
      expect(result.exactFallback).toBe(false);
      expect(result.hits).toHaveLength(K);
      for (const hit of result.hits) expect(aliceVectors.has(hit.memoryId)).toBe(true);
      const expected = new Set(truth(query));
      found += result.hits.filter((h) => expected.has(h.memoryId)).length;
    }
    const recall = found / (QUERIES * K);
    console.info(
      `[vector-search] HNSW plan (iterative scan, strict order): recall@10 = ${recall.toFixed(3)} over ${QUERIES} queries; ` +
        `median ${median(latencies).toFixed(1)} ms per search (incl. transaction)`,
    );
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  it('shows the intended plan in EXPLAIN for each mode', async () => {
    const indexName = hnswIndexName(MODEL);
    const [hnswPlan, exactPlan] = await db.tx.inTenant(alice, async (tx) => [
      await hnswRepo.explain(alice, tx, input(queries[0]), 'hnsw'),
      await exactRepo.explain(alice, tx, input(queries[0]), 'exact'),
    ]);
    expect(hnswPlan).toMatch(new RegExp(`Index Scan using ${indexName} on memory_embeddings`));
    expect(hnswPlan).toMatch(/Order By: \(\(embedding\)::vector\(100\) <=> /);
    // Each row the index yields is checked against memories by primary key, not joined in bulk.
    expect(hnswPlan).toMatch(/Index Scan using memories_(pkey|id_owner) on memories m/);
    expect(exactPlan).not.toContain(indexName);
    expect(exactPlan).toMatch(/CTE Scan on candidates/);
    expect(exactPlan).toMatch(/Sort\n\s+Sort Key: \(\(\(candidates\.embedding\)::vector\(100\) <=> /);
    // The settings the index walk depends on are in force inside the transaction only.
    const settings = await db.tx.inTenant(alice, async (tx) => {
      await hnswRepo.explain(alice, tx, input(queries[0]), 'hnsw');
      const { rows } = await tx.query<{ ef: string; mode: string }>(
        `SELECT current_setting('hnsw.ef_search') AS ef, current_setting('hnsw.iterative_scan') AS mode`,
      );
      return rows[0];
    });
    expect(settings).toEqual({ ef: '200', mode: 'strict_order' });
    const after = await db.tx.inTenant(alice, (tx) =>
      tx.query<{ mode: string }>(`SELECT current_setting('hnsw.iterative_scan', true) AS mode`),
    );
    expect(after.rows[0].mode).not.toBe('strict_order');
  });

  it('falls back to an exact scan when the index walk hits its tuple cap before k rows pass', async () => {
    // A user with three rows far from everyone else's: the walk from a query in alice's region
    // gives up after max_scan_tuples, the exact scan over his rows answers instead.
    const sparse = await createTestTenant(db, 'sparse').then((t) => t.addUser('sparse'));
    const far = Array.from({ length: D }, (_, i) => (i % 2 === 0 ? 50 : -50));
    await db.tx.inTenant(sparse, async (tx) => {
      for (let n = 0; n < 3; n += 1) {
        const { rows } = await tx.query<{ id: string }>(
          `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
           VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8'))) RETURNING id`,
          [sparse.tenantId, sparse.userId, `sparse ${n}`],
        );
        await tx.query(
          `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
           VALUES ($1, $2, $3, $4, $5::vector, sha256('x'))`,
          [rows[0].id, MODEL, sparse.tenantId, sparse.userId, JSON.stringify(far.map((x) => x + n))],
        );
      }
    });
    const capped = new MemoryVectorRepository({ exactScanMaxRows: 0, maxScanTuples: 1_000 });
    const result = await db.tx.inTenant(sparse, (tx) => capped.searchDetailed(sparse, tx, input(queries[0])));
    expect(result).toMatchObject({ plan: 'hnsw', exactFallback: true });
    expect(result.hits).toHaveLength(3);
  });

  it("never returns another user's rows, in either plan, to users in the same or another tenant", async () => {
    for (const [who, scope] of [
      ['bob (same tenant)', bob],
      ['outsider (other tenant)', outsider],
    ] as const) {
      for (const repo of [exactRepo, hnswRepo]) {
        const hits: VectorHit[] = await db.tx.inTenant(scope, (tx) =>
          repo.search(scope, tx, input(queries[3])),
        );
        expect(hits, who).toHaveLength(K);
        const owners = await db.tx.asSystem((tx) =>
          tx.query<{ owner_id: string }>(
            `SELECT DISTINCT owner_id FROM memories WHERE id = ANY($1::bigint[])`,
            [hits.map((h) => h.memoryId)],
          ),
        );
        expect(
          owners.rows.map((r) => r.owner_id),
          who,
        ).toEqual([scope.userId]);
        for (const hit of hits) expect(aliceVectors.has(hit.memoryId), who).toBe(false);
      }
    }
  });
});
