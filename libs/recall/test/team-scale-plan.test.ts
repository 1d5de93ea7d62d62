import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EmbeddingModelRepository } from '@app/embeddings/testing';
import { hnswIndexName } from '@app/embeddings';
import {
  MemoryTextSearchRepository,
  MemoryVectorRepository,
  TextIndexFeedRepository,
} from '@app/recall/testing';
import { type TenantScope, type Tx } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

/**
 * One team of 20 users with 200,000 memories, 6 in 7 team-visible: every member's visible set is
 * ~170k rows. As the application role in the tenant, recall's own statements (run through the
 * repositories) must use the GIN index for the text leg (inside `recall_text_search`, whose pruning
 * leaves terms every memory holds unranked next to a selective one) and the
 * model's HNSW index for the vector leg. The plans are captured with auto_explain (nested
 * statements included), so what is checked is what ran, not a re-typed copy of the SQL.
 */
const MODEL = 'team-scale-100d';
const D = 100;
const MEMORIES = 200_000;
const USERS = 20;
/** Every 11th memory has a vector (~18k rows of every owner): enough to walk, quick to index. */
const EMBEDDED_EVERY = 11;
const THRESHOLD = 20_000;

describe('recall plans at team size (200k memories, one team)', () => {
  let scratch: ScratchDatabase;
  let db: TestDatabase;
  let pg: Client;
  let member: TenantScope;
  const notices: string[] = [];

  /**
   * The caller's transaction as TransactionRunner opens it, on a connection with auto_explain
   * loaded: returns what `work` returned and the plan of every statement that ran, nested ones too.
   * (auto_explain reports a statement when its portal closes, which can be during the next one, so
   * plans are told apart by their query text, not by the order they arrive in.)
   */
  const inTenantExplained = async <T>(scope: TenantScope, work: (tx: Tx) => Promise<T>) => {
    const tx: Tx = {
      async query<Row>(sql: string, params?: readonly unknown[]) {
        const result = await pg.query(sql, params ? [...params] : undefined);
        return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
      },
      afterCommit: () => undefined,
    };
    notices.length = 0;
    await pg.query('BEGIN');
    try {
      await pg.query(
        `SELECT set_config('role', 'memory_app', true), set_config('app.tenant_id', $1, true),
                set_config('app.user_id', $2, true), set_config('app.admin', 'off', true)`,
        [scope.tenantId, scope.userId],
      );
      const result = await work(tx);
      await pg.query('COMMIT');
      return { result, plans: [...notices] };
    } catch (error) {
      await pg.query('ROLLBACK');
      throw error;
    }
  };

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'team_scale');
    db = await openTestDatabase(scratch.url, 2);
    const team = await createTestTenant(db, 'scale');
    const users: TenantScope[] = [];
    for (let u = 0; u < USERS; u += 1) users.push(await team.addUser(`member-${u}`));
    member = users[3];
    const started = Date.now();
    await db.tx.asSystem(async (tx) => {
      await tx.query(`SET LOCAL statement_timeout = 0`);
      // A bulk load, not 200k API writes: the per-row sync trigger is skipped (replica mode, superuser
      // only); change sequences do not matter to recall.
      await tx.query(`SET LOCAL session_replication_role = replica`);
      await tx.query(`SELECT setseed(0.25)`);
      await tx.query(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility, tags, category, project)
         SELECT $1, ($2::uuid[])[1 + i % ${USERS}], c, sha256(convert_to(c, 'UTF8')),
                CASE WHEN i % 7 = 0 THEN 'private' ELSE 'team' END, ARRAY['t' || (i % 50)],
                (ARRAY['facts', 'decisions', 'gotchas', 'preferences'])[1 + i % 4], 'p' || (i % 7)
           FROM generate_series(1, ${MEMORIES}) i,
                LATERAL (SELECT 'memory ' || i || ' about w' || (random() * 3000)::int || ' w' || (random() * 3000)::int
                                || ' k' || (random() * 300)::int || ' deploy database service' AS c) x`,
        [team.tenantId, users.map((u) => u.userId)],
      );
      await tx.query(`INSERT INTO embedding_models (id, dimensions, status) VALUES ($1, $2, 'active')`, [
        MODEL,
        D,
      ]);
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
         SELECT m.id, $1, m.tenant_id, m.owner_id,
                (SELECT array_agg(random() * 2 - 1) FROM generate_series(1, ${D} + m.id * 0))::vector, m.content_hash
           FROM memories m WHERE m.tenant_id = $2 AND m.id % ${EMBEDDED_EVERY} = 0`,
        [MODEL, team.tenantId],
      );
      // Shares make the share branches of the plan real: 200 of a teammate's private memories
      // directly, and a tag rule over another teammate's.
      await tx.query(
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
         SELECT id, owner_id, $1, tenant_id, 'read' FROM memories
          WHERE owner_id = $2 AND visibility = 'private' ORDER BY id LIMIT 200`,
        [member.userId, users[4].userId],
      );
      await tx.query(
        `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission) VALUES ($1, 't5', $2, $3, 'read')`,
        [users[5].userId, member.userId, team.tenantId],
      );
    });
    // Replica mode skipped the text-statistics triggers too: recount, as an operator would.
    await db.tx.asSystem((tx) => tx.query(`SELECT text_stats_rebuild($1)`, [team.tenantId]));
    const loaded = Date.now();
    await db.tx.asSystem(async (tx) => {
      await tx.query(`SET LOCAL maintenance_work_mem = '256MB'`);
      await new EmbeddingModelRepository().ensureIndex(tx, { id: MODEL, dimensions: D });
    });
    const indexed = Date.now();
    await db.dataSource.query(
      `VACUUM (ANALYZE) memories, memory_embeddings, memory_shares, tag_shares, memory_text_lengths, text_term_stats`,
    );
    console.info(
      `[team-scale] loaded ${MEMORIES} memories in ${loaded - started} ms; ` +
        `HNSW over ${Math.floor(MEMORIES / EMBEDDED_EVERY)} vectors in ${indexed - loaded} ms; vacuum/analyze ${Date.now() - indexed} ms`,
    );

    pg = new Client({ connectionString: scratch.url });
    await pg.connect();
    pg.on('notice', (notice) => notices.push(notice.message ?? ''));
    await pg.query(`LOAD 'auto_explain'`);
    await pg.query(`SET auto_explain.log_min_duration = 0`);
    await pg.query(`SET auto_explain.log_nested_statements = on`);
    await pg.query(`SET auto_explain.log_level = notice`);
  }, 180_000);

  afterAll(async () => {
    await pg?.end();
    await db?.close();
    await scratch?.drop();
  });

  /** Plans of the scoring rounds `recall_text_search` ran (each a query through the read rule). */
  const scoringRounds = (plans: string[]) => plans.filter((p) => p.includes('search_vector @@ p_match'));

  it('text leg: recall_text_search reads the GIN index, never every visible row', async () => {
    const text = new MemoryTextSearchRepository();
    const started = performance.now();
    const { result: hits, plans } = await inTenantExplained(member, (tx) =>
      text.search(member, tx, { text: 'w17 k42', k: 30, filter: {} }),
    );
    const ms = performance.now() - started;
    expect(hits.length).toBeGreaterThan(0);
    const calls = plans.filter((p) => /Query Text: WITH h AS[\s\S]*recall_text_search\(/.test(p));
    expect(calls).toHaveLength(1);
    // How much of the query each hit holds: its rows by id, not a walk over the tenant's.
    const coverage = plans.filter((p) => p.includes('tsvector_to_array(m.search_vector)'));
    expect(coverage).toHaveLength(1);
    expect(coverage[0]).not.toMatch(/Seq Scan on memories/);
    const rounds = scoringRounds(plans);
    expect(rounds.length).toBeGreaterThan(0);
    for (const plan of rounds) {
      expect(plan).toMatch(/Bitmap Index Scan on memories_search/);
      expect(plan).not.toMatch(/Seq Scan on memories/);
    }
    console.info(`[team-scale] text leg, with auto_explain on: ${ms.toFixed(1)} ms`);
  });

  it('text leg: terms every memory holds are not ranked across their matches next to a selective one', async () => {
    const text = new MemoryTextSearchRepository();
    // deploy, database and service are in all 200k memories; w17 in ~130.
    const { result: hits, plans } = await inTenantExplained(member, (tx) =>
      text.search(member, tx, { text: 'deploy the database service w17', k: 30, filter: {} }),
    );
    expect(hits).toHaveLength(30);
    // One round (the rare term's matches) settled it: the common terms' bound is below the 30th score.
    const rounds = scoringRounds(plans);
    expect(rounds).toHaveLength(1);
    expect(rounds[0]).toMatch(/Bitmap Index Scan on memories_search/);
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ n: string }>(
        `SELECT count(*) AS n FROM memories WHERE id = ANY ($1::bigint[]) AND content ~ ' w17( |$)'`,
        [hits.map((h) => h.memoryId)],
      ),
    );
    expect(Number(rows[0].n)).toBe(30);
  });

  it('vector leg: the visible set is counted past the threshold and the HNSW index answers', async () => {
    const vectors = new MemoryVectorRepository({ exactScanMaxRows: THRESHOLD });
    const vector = Array.from({ length: D }, (_, i) => Math.cos(i * 0.7));
    const { result, plans } = await inTenantExplained(member, (tx) =>
      vectors.searchDetailed(member, tx, { modelId: MODEL, dimensions: D, vector, k: 30 }),
    );
    expect(result).toMatchObject({ plan: 'hnsw', exactFallback: false });
    expect(result.candidates).toBeGreaterThanOrEqual(THRESHOLD);
    expect(result.hits).toHaveLength(30);
    const nearest = plans.filter((p) => p.includes('ORDER BY e.embedding::vector'));
    expect(nearest).toHaveLength(1);
    expect(nearest[0]).toMatch(new RegExp(`Index Scan using ${hnswIndexName(MODEL)} on memory_embeddings`));
  });

  it('text index delta: the rows changed since the index position come from the (tenant, position) index, whatever plans the caller asked for', async () => {
    const feed = new TextIndexFeedRepository();
    const position = await db.tx.asSystem((tx) => feed.horizon(tx));
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ id: string }>(
        `UPDATE memories SET content = content || ' rewritten' WHERE id = (
           SELECT id FROM memories WHERE tenant_id = $1 AND visibility = 'team' ORDER BY id LIMIT 1)
         RETURNING id`,
        [member.tenantId],
      ),
    );
    // Recall's transaction plans once per connection (generic plans): a plan that does not know the
    // position must still not read the tenant's 200k memories to find the one changed since.
    const { result: delta, plans } = await inTenantExplained(member, async (tx) => {
      await tx.query(`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`);
      let last = await feed.delta(tx, position, 'w17 rewritten');
      for (let i = 0; i < 6; i += 1) last = await feed.delta(tx, position, 'w17 rewritten');
      return last;
    });
    expect(delta.changed.map((d) => d.id)).toEqual([Number(rows[0].id)]);
    expect(delta.lexemes).toEqual(['rewritten', 'w17']);
    const changedRows = plans.filter((p) =>
      /Query Text: SELECT coalesce\(json_agg\(recall_text_index_doc/.test(p),
    );
    expect(changedRows).toHaveLength(7);
    for (const plan of changedRows) {
      expect(plan).toMatch(
        /Index Scan using memories_tenant_change on memories|Bitmap Index Scan on memories_tenant_change/,
      );
      expect(plan).not.toMatch(/Seq Scan on memories/);
    }
    const removals = plans.filter((p) =>
      /Query Text: SELECT coalesce\(json_agg\(json_build_array\(r\.memory_id/.test(p),
    );
    expect(removals).toHaveLength(7);
    for (const plan of removals) expect(plan).not.toMatch(/Seq Scan on sync_audience_changes/);
  });
});
