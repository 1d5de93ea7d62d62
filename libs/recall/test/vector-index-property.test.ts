import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import { type TenantScope } from '@app/persistence';
import { buildTextIndexLeg, MemoryVectorRepository, type TextIndexRegistry } from '@app/recall/testing';
import { ALL_SCOPES } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import type { RecallFilter } from '../src/domain/recall-filter';

/**
 * The in-memory vector index answers as the SQL exact scan (`MemoryVectorRepository`'s exact plan,
 * the reference): for random corpora, visibility (private, team, direct shares, tag rules, an
 * admin), re-embeddings, zero vectors, soft deletes, restores, purges, expiry and filters, its top k
 * equals the scan's (ids in distance order, distances equal to 1e-5), whether it scores every
 * readable vector or takes candidates from its HNSW graph, whatever was loaded and whatever came
 * later through deltas — and every id it returns is one the caller reads under row-level security.
 */
const MODEL = 'test-vector-index-6d';
const D = 6;
const TAGS = ['a', 'b', 'c'];
const USERS = 4;

type Vector = number[];
type Command =
  | { op: 'insert'; owner: number; vector: Vector; team: boolean; tags: string[]; category: string }
  | { op: 'reembed'; pick: number; vector: Vector }
  | { op: 'visibility'; pick: number; team: boolean }
  | { op: 'softDelete' | 'restore' | 'purge' | 'expire' | 'unexpire'; pick: number }
  | { op: 'share' | 'unshare'; pick: number; to: number }
  | { op: 'tagRule' | 'dropTagRule'; owner: number; tag: string; to: number }
  | { op: 'recall'; caller: number; vector: Vector; filter: RecallFilter; k: number };

const vector: fc.Arbitrary<Vector> = fc.oneof(
  { weight: 20, arbitrary: fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: D, maxLength: D }) },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: D }, () => 0)) },
);
const user = fc.integer({ min: 0, max: USERS - 1 });
const pick = fc.nat();
const filter: fc.Arbitrary<RecallFilter> = fc.record(
  { category: fc.constantFrom('x', 'y', 'none'), tags: fc.constantFrom(['a'], ['b', 'c'], ['zzz']) },
  { requiredKeys: [] },
);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      owner: user,
      vector,
      team: fc.boolean(),
      tags: fc.subarray(TAGS),
      category: fc.constantFrom('x', 'y'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reembed' as const), pick, vector }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('visibility' as const), pick, team: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constantFrom(
        'softDelete' as const,
        'restore' as const,
        'purge' as const,
        'expire' as const,
        'unexpire' as const,
      ),
      pick,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constantFrom('share' as const, 'unshare' as const), pick, to: user }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constantFrom('tagRule' as const, 'dropTagRule' as const),
      owner: user,
      tag: fc.constantFrom(...TAGS),
      to: user,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('recall' as const),
      caller: fc.integer({ min: 0, max: USERS }), // USERS: the admin
      vector,
      filter,
      k: fc.constantFrom(1, 3, 10),
    }),
  },
);

describe('in-memory vector index against the SQL exact scan', () => {
  let db: TestDatabase;
  const sql = new MemoryVectorRepository({ exactScanMaxRows: 1_000_000 });

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    await db.tx.asSystem((tx) =>
      tx.query(
        `INSERT INTO embedding_models (id, dimensions, status) VALUES ($1, $2, 'retired') ON CONFLICT (id) DO NOTHING`,
        [MODEL, D],
      ),
    );
  });
  afterAll(async () => {
    await db?.close();
  });

  for (const plan of ['exact', 'graph'] as const) {
    it(`returns the exact scan's top k for every caller, filter and history (${plan} plan), and only readable ids`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(command, { minLength: 5, maxLength: 15 }),
          fc.array(command, { minLength: 10, maxLength: 40 }),
          async (before, after) => {
            const tenant = await createTestTenant(db, 'vip');
            const users: TenantScope[] = [];
            for (let i = 0; i < USERS; i += 1) users.push(await tenant.addUser(`u${i}`));
            const admin: TenantScope = { ...(await tenant.addUser('boss')), scopes: ALL_SCOPES };
            const world = new World(db, users, admin);
            const { leg, registry } = buildTextIndexLeg(db.tx, {
              maxBytes: 16 * 1024 * 1024,
              pageSize: 7,
              vectorExactWork: plan === 'exact' ? 1_000_000 : 0,
              graphBatch: 10_000,
            });
            const model = { modelId: MODEL, dimensions: D };
            const check = async (r: { caller: number; vector: Vector; filter: RecallFilter; k: number }) => {
              const scope = world.callerOf(r);
              const query = { ...model, vector: Float32Array.from(r.vector) };
              const expected = await db.tx.inTenant(scope, (tx) =>
                sql.searchDetailed(scope, tx, { ...model, vector: r.vector, k: r.k, filters: r.filter }),
              );
              expect(expected.plan).toBe('exact');
              const got = await db.tx.inTenant(scope, (tx) =>
                leg.search(scope, tx, { text: '', k: r.k, filter: r.filter, query, withText: false }),
              );
              expect(got.vector).not.toBeNull();
              expect(got.vector && 'hits' in got.vector).toBe(true);
              const hits = got.vector && 'hits' in got.vector ? got.vector.hits : [];
              // SQL answers a zero vector's distance as NaN; recall drops those (VectorRecallAdapter).
              const reference = expected.hits.filter((h) => Number.isFinite(h.distance));
              const wanted = expected.hits.length < r.k ? reference : reference.slice(0, r.k);
              expect(hits.length).toBe(wanted.length);
              hits.forEach((h, i) => expect(h.distance).toBeCloseTo(wanted[i].distance, 5));
              // Ties (equal distances, to float noise) may come in either order.
              const tied = (d: number) => wanted.filter((w) => Math.abs(w.distance - d) < 1e-5).length > 1;
              hits.forEach((h, i) => {
                if (!tied(wanted[i].distance)) expect(h.memoryId).toBe(wanted[i].memoryId);
              });
              const ids = hits.map((h) => h.memoryId);
              const readable = await db.tx.inTenant(scope, (tx) =>
                tx.query<{ n: string }>(`SELECT count(*) AS n FROM memories WHERE id = ANY($1::bigint[])`, [
                  ids,
                ]),
              );
              expect(Number(readable.rows[0].n)).toBe(ids.length);
            };
            for (const c of before) await world.run(c, () => Promise.resolve());
            // Loaded from what `before` left; `after` reaches the index through deltas only.
            expect(await (registry as TextIndexRegistry).warmVectors(users[0], model)).toBe(true);
            for (const c of after) await world.run(c, check);
            for (let i = 0; i <= USERS; i += 1) {
              await check({ caller: i, vector: [1, 2, 3, 4, 5, 6], filter: {}, k: 100 });
            }
          },
        ),
        { numRuns: 15, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) },
      );
    });
  }
});

/** The commands, applied as their owners (row-level security on) or, for purges and vectors, as the system. */
class World {
  private readonly ids: { id: number; owner: number }[] = [];

  constructor(
    private readonly db: TestDatabase,
    private readonly users: TenantScope[],
    private readonly admin: TenantScope,
  ) {}

  callerOf(r: { caller: number }): TenantScope {
    return r.caller === this.users.length ? this.admin : this.users[r.caller];
  }

  async run(c: Command, recall: (r: Extract<Command, { op: 'recall' }>) => Promise<void>): Promise<void> {
    if (c.op === 'recall') return recall(c);
    if (c.op === 'insert') return this.insert(c);
    if (!('pick' in c)) return this.tagRule(c);
    if (this.ids.length === 0) return;
    return this.change(c);
  }

  private async change(c: Extract<Command, { pick: number }>): Promise<void> {
    const m = this.ids[c.pick % this.ids.length];
    const owner = this.users[m.owner];
    const asOwner = (q: string, params: unknown[] = []) =>
      this.db.tx.inTenant(owner, (tx) => tx.query(q, [m.id, ...params]));
    switch (c.op) {
      case 'reembed':
        return this.embed(m.id, c.vector);
      case 'visibility':
        return void (await asOwner(`UPDATE memories SET visibility = $2 WHERE id = $1`, [
          c.team ? 'team' : 'private',
        ]));
      case 'softDelete':
        return void (await asOwner(
          `UPDATE memories SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL`,
        ));
      case 'restore':
        return void (await asOwner(`UPDATE memories SET deleted_at = NULL WHERE id = $1`));
      case 'expire':
        return void (await asOwner(
          `UPDATE memories SET expires_at = now() - interval '1 second' WHERE id = $1`,
        ));
      case 'unexpire':
        return void (await asOwner(`UPDATE memories SET expires_at = NULL WHERE id = $1`));
      case 'purge':
        this.ids.splice(this.ids.indexOf(m), 1);
        return void (await this.db.tx.asSystem((tx) =>
          tx.query(`DELETE FROM memories WHERE id = $1`, [m.id]),
        ));
      case 'share':
      case 'unshare': {
        if (c.to === m.owner) return;
        const target = this.users[c.to].userId;
        return void (await asOwner(
          c.op === 'share'
            ? `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
                 SELECT id, owner_id, $2, tenant_id, 'read' FROM memories WHERE id = $1 ON CONFLICT DO NOTHING`
            : `DELETE FROM memory_shares WHERE memory_id = $1 AND shared_with = $2`,
          [target],
        ));
      }
    }
  }

  private async insert(c: Extract<Command, { op: 'insert' }>): Promise<void> {
    const owner = this.users[c.owner];
    const id = await this.db.tx.inTenant(owner, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility, tags, category)
         VALUES ($1, $2, 'v', sha256(convert_to(gen_random_uuid()::text, 'UTF8')), $3, $4, $5)
         RETURNING id`,
        [owner.tenantId, owner.userId, c.team ? 'team' : 'private', c.tags, c.category],
      );
      return Number(rows[0].id);
    });
    this.ids.push({ id, owner: c.owner });
    await this.embed(id, c.vector);
  }

  private async embed(id: number, vector: Vector): Promise<void> {
    await this.db.tx.asSystem((tx) =>
      tx.query(
        `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
         SELECT m.id, $2, m.tenant_id, m.owner_id, $3::text::vector, sha256(convert_to($3::text, 'UTF8')) FROM memories m WHERE m.id = $1
         ON CONFLICT (memory_id, model_id, tenant_id) DO UPDATE SET embedding = EXCLUDED.embedding, input_hash = EXCLUDED.input_hash`,
        [id, MODEL, JSON.stringify(vector)],
      ),
    );
  }

  private async tagRule(c: Extract<Command, { op: 'tagRule' | 'dropTagRule' }>): Promise<void> {
    if (c.to === c.owner) return;
    const owner = this.users[c.owner];
    await this.db.tx.inTenant(owner, (tx) =>
      c.op === 'tagRule'
        ? tx.query(
            `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, 'read')
             ON CONFLICT DO NOTHING`,
            [owner.userId, c.tag, this.users[c.to].userId, owner.tenantId],
          )
        : tx.query(`DELETE FROM tag_shares WHERE owner_id = $1 AND tag = $2 AND shared_with = $3`, [
            owner.userId,
            c.tag,
            this.users[c.to].userId,
          ]),
    );
  }
}
