import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EmbeddingModelRepository } from '@app/embeddings/testing';
import {
  buildNearDuplicatesQuery,
  buildNearestQuery,
  MemoryVectorRepository,
  type BuiltQuery,
} from '@app/recall/testing';
import { type TenantScope } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

const MODEL = 'stale-stats-100d';
const D = 100;
const ALICE_ROWS = 7_500;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  Plans?: PlanNode[];
}

const walk = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(walk)];
/** A probe by memory id: the primary key, or the unique (id, owner_id) index the shares reference. */
const BY_KEY = /^memories_(pkey|id_owner)$/;

/**
 * A user who stored thousands of memories since the last ANALYZE (autovacuum slow or off): the
 * statistics say she owns none, so the planner estimates 1 row. Found in the field: `check` took
 * 14–15 s at ~7,500 memories and `/duplicates` 11–14 s. Reproduced here with autovacuum off.
 */
describe('plans after a bulk load the statistics have not seen', () => {
  let scratch: ScratchDatabase;
  let db: TestDatabase;
  let alice: TenantScope;
  const vector = Array.from({ length: D }, (_, i) => Math.sin(i + 1));

  const load = async (scope: TenantScope, count: number, label: string) =>
    db.tx.asSystem(async (tx) => {
      await tx.query(`SET LOCAL statement_timeout = 0`);
      await tx.query(`SELECT setseed(0.17)`);
      await tx.query(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility)
         SELECT $1, $2, $3 || i, sha256(convert_to($3 || i, 'UTF8')), 'team' FROM generate_series(1, $4) i`,
        [scope.tenantId, scope.userId, `${label} `, count],
      );
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
         SELECT m.id, $1, m.tenant_id, m.owner_id,
                (SELECT array_agg(random() * 2 - 1) FROM generate_series(1, ${D}) d)::vector, m.content_hash
           FROM memories m WHERE m.owner_id = $2`,
        [MODEL, scope.userId],
      );
    });

  const explain = async (query: BuiltQuery): Promise<PlanNode> => {
    const { rows } = await db.tx.inTenant(alice, (tx) =>
      tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query.sql}`,
        query.params,
      ),
    );
    return rows[0]['QUERY PLAN'][0].Plan;
  };

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'stale_stats');
    db = await openTestDatabase(scratch.url, 4);
    const tenant = await createTestTenant(db, 'stale');
    alice = await tenant.addUser('alice');
    const bob = await tenant.addUser('bob');
    for (const table of ['memories', 'memory_embeddings']) {
      await db.dataSource.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    }
    await db.tx.asSystem(async (tx) => {
      await tx.query(`INSERT INTO embedding_models (id, dimensions, status) VALUES ($1, $2, 'active')`, [
        MODEL,
        D,
      ]);
      await new EmbeddingModelRepository().ensureIndex(tx, { id: MODEL, dimensions: D });
    });
    // The statistics are taken while only bob has memories; then alice's arrive.
    await load(bob, 50, 'bob');
    await db.dataSource.query(`ANALYZE memories, memory_embeddings`);
    await load(alice, ALICE_ROWS, 'alice');
  }, 300_000);

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it("probes each of the caller's memories by primary key in the exact vector plans (check, recall)", async () => {
    for (const reach of ['own', 'visible'] as const) {
      const plan = await explain(
        buildNearestQuery('exact', reach, alice, { modelId: MODEL, dimensions: D, vector, k: 5 }),
      );
      const memoryScans = walk(plan).filter((n) => n['Relation Name'] === 'memories');
      expect(memoryScans.length, reach).toBeGreaterThan(0);
      // Own rows: by key; the team branch starts from the team index (no other user has team rows here).
      expect(memoryScans[0]['Index Name'], reach).toMatch(BY_KEY);
      // The stale plan read the owner's rows once per embedding: ~870k buffer hits; now ~3 per row.
      expect(plan['Shared Hit Blocks'], reach).toBeLessThan(ALICE_ROWS * 10);
    }
  });

  it('bounds near-duplicate detection: the exact scan probes by key, large owners use the index', async () => {
    const spec = { modelId: MODEL, dimensions: D, threshold: 0.9, limit: 50, scanCap: 2000 };
    const exact = await explain(buildNearDuplicatesQuery('exact', alice, spec));
    const memoryScans = walk(exact).filter((n) => n['Relation Name'] === 'memories');
    expect(memoryScans).toHaveLength(1);
    expect(memoryScans[0]['Index Name']).toMatch(BY_KEY);

    const repository = new MemoryVectorRepository({ exactScanMaxRows: 20_000 });
    const plan = await db.tx.inTenant(alice, (tx) => repository.duplicatesPlan(alice, tx, spec));
    // 2,000 scanned × 7,500 rows = 15M distances exactly; 2,000 index probes instead.
    expect(plan).toBe('hnsw');
    const pairs = await db.tx.inTenant(alice, (tx) => repository.nearDuplicatePairs(alice, tx, spec));
    expect(Array.isArray(pairs)).toBe(true);
  });
});
