import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import { type TenantScope } from '@app/persistence';
import {
  buildTextIndexLeg,
  MemoryTextSearchRepository,
  RecallCandidateRepository,
  type TextLeg,
  type TextIndexRegistry,
} from '@app/recall/testing';
import { ALL_SCOPES } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import type { RecallFilter } from '../src/domain/recall-filter';

/**
 * The in-memory index answers exactly as the SQL BM25 (`recall_text_search`, the reference): for
 * random corpora, visibility (private, team, direct shares, tag rules, an admin), content and tag
 * changes, soft deletes, restores, purges, expiry and filters, the index's top k equals the
 * function's (ids in order, ties by id; scores equal to 1e-9), whatever was loaded and whatever
 * came later through deltas — and every id it returns is one the caller reads under row-level
 * security.
 */
const WORDS = [
  'kestrel',
  'harbor',
  'deploy',
  'deploying',
  'rollback',
  'cache',
  'vault',
  'alpha',
  'beta',
  'gamma',
];
const TAGS = ['a', 'b', 'c'];
const USERS = 4;

type Command =
  | {
      op: 'insert';
      owner: number;
      text: string;
      keywords: string;
      team: boolean;
      tags: string[];
      category: string;
      importance: number;
      created: string | null;
    }
  | { op: 'update'; pick: number; text: string; tags: string[] }
  | { op: 'visibility'; pick: number; team: boolean }
  | { op: 'softDelete' | 'restore' | 'purge' | 'expire' | 'unexpire'; pick: number }
  | { op: 'share' | 'unshare'; pick: number; to: number }
  | { op: 'tagRule' | 'dropTagRule'; owner: number; tag: string; to: number }
  | { op: 'recall'; caller: number; text: string; filter: RecallFilter; k: number };

const text = (min: number, max: number) =>
  fc.array(fc.constantFrom(...WORDS), { minLength: min, maxLength: max }).map((w) => w.join(' '));
const user = fc.integer({ min: 0, max: USERS - 1 });
const caller = fc.integer({ min: 0, max: USERS }); // USERS: the admin
const pick = fc.nat();
// Thread tags too (rarely two on one memory), for the neighbours ranking reads from the index.
const tags = fc
  .tuple(
    fc.subarray(TAGS),
    fc.constantFrom([], [], ['session:s1'], ['thread:t1'], ['session:s1', 'thread:t1']),
  )
  .map(([plain, thread]) => [...plain, ...thread]);
const filter: fc.Arbitrary<RecallFilter> = fc.record(
  {
    category: fc.constantFrom('x', 'y', 'none'),
    tags: fc.constantFrom(['a'], ['b', 'c'], ['zzz']),
    project: fc.constantFrom('p1', 'nope'),
  },
  { requiredKeys: [] },
);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      owner: user,
      text: text(1, 8),
      keywords: text(0, 3),
      team: fc.boolean(),
      tags,
      category: fc.constantFrom('x', 'y'),
      importance: fc.constantFrom(0, 0.35, 0.7, 1),
      // Equal and microsecond-apart creation times order threads by id, then by the microsecond;
      // minutes apart, inside and outside the implicit threads' window (IMPLICIT_WINDOW_MS).
      created: fc.constantFrom(
        null,
        '2026-01-01T00:00:00Z',
        '2026-01-01T00:00:00.000001Z',
        '2026-01-01T00:04:00Z',
        '2026-01-01T00:10:00Z',
        '2026-01-01T00:10:00.000001Z',
        '2026-01-01T00:30:00Z',
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('update' as const), pick, text: text(1, 8), tags }) },
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
      caller,
      text: text(1, 4),
      filter,
      k: fc.constantFrom(3, 10, 50),
    }),
  },
);

describe('in-memory text index against the SQL BM25', () => {
  let db: TestDatabase;
  const sql = new MemoryTextSearchRepository();

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('returns the same top k for every caller, filter and history, and only readable ids', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 5, maxLength: 15 }),
        fc.array(command, { minLength: 10, maxLength: 40 }),
        async (before, after) => {
          const tenant = await createTestTenant(db, 'tip');
          const users: TenantScope[] = [];
          for (let i = 0; i < USERS; i += 1) users.push(await tenant.addUser(`u${i}`));
          const admin: TenantScope = { ...(await tenant.addUser('boss')), scopes: ALL_SCOPES };
          const world = new World(db, users, admin);
          const { leg, registry } = buildTextIndexLeg(db.tx, { maxBytes: 16 * 1024 * 1024, pageSize: 7 });
          for (const c of before) await world.run(c, () => Promise.resolve());
          // Loaded from what `before` left; `after` reaches the index through deltas only.
          expect(await (registry as TextIndexRegistry).warm(users[0])).toBe(true);
          for (const c of after)
            await world.run(c, (r) => compare(db, sql, leg, world.callerOf(r), r, world.everyId));
          for (let i = 0; i <= USERS; i += 1) {
            await compare(
              db,
              sql,
              leg,
              world.callerOf({ caller: i }),
              { text: WORDS.join(' '), filter: {}, k: 100 },
              world.everyId,
            );
          }
        },
      ),
      { numRuns: 25 },
    );
    expect(withNeighbours).toBeGreaterThan(10);
    expect(withImplicit).toBeGreaterThan(10);
  });
});

/** Comparisons where some memory had a thread neighbour: the property must reach threads. */
let withNeighbours = 0;
/** Those where an untagged memory had one (an implicit thread): the property must reach them too. */
let withImplicit = 0;
/** Untagged memories written within ten minutes of each other form a thread (RECALL_THREAD_WINDOW_MINUTES=10). */
const IMPLICIT_WINDOW_MS = 600_000;

async function compare(
  db: TestDatabase,
  sql: MemoryTextSearchRepository,
  leg: TextLeg,
  scope: TenantScope,
  r: { text: string; filter: RecallFilter; k: number },
  allIds: readonly number[],
): Promise<void> {
  const input = { text: r.text, k: r.k, filter: r.filter };
  const expected = await db.tx.inTenant(scope, (tx) => sql.search(scope, tx, input));
  const got = await db.tx.inTenant(scope, (tx) => leg.search(scope, tx, input));
  expect(got.source).toBe('index');
  expect(got.hits.map((h) => h.memoryId)).toEqual(expected.map((h) => h.memoryId));
  got.hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i].score, 9));
  // How much of the query each hit holds: the same share from the index as from Postgres, within 0–1.
  got.hits.forEach((h, i) => {
    expect(expected[i].coverage, r.text).toBeDefined();
    expect(h.coverage, r.text).toBeCloseTo(expected[i].coverage!, 9);
    expect(h.coverage).toBeGreaterThan(0);
    expect(h.coverage).toBeLessThanOrEqual(1 + 1e-12);
  });
  const ids = got.hits.map((h) => h.memoryId);
  const readable = await db.tx.inTenant(scope, (tx) =>
    tx.query<{ n: string }>(`SELECT count(*) AS n FROM memories WHERE id = ANY($1::bigint[])`, [ids]),
  );
  expect(Number(readable.rows[0].n)).toBe(ids.length);
  await compareFacts(db, got, scope, allIds);
}

/**
 * The ranking facts and thread neighbours the index gives recall equal what Postgres reads
 * (`RecallCandidateRepository.describe`, without heads) for every memory ever written, readable
 * or not; the index declines (null) exactly when a readable one carries two thread tags.
 */
async function compareFacts(
  db: TestDatabase,
  got: Awaited<ReturnType<TextLeg['search']>>,
  scope: TenantScope,
  ids: readonly number[],
): Promise<void> {
  const { rows } = await db.tx.inTenant(scope, (tx) =>
    tx.query<{ id: string }>(
      `SELECT id FROM memories
        WHERE id = ANY($1::bigint[]) AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > now())
          AND cardinality(ARRAY(SELECT t FROM unnest(tags) t WHERE t LIKE 'thread:%' OR t LIKE 'session:%')) > 1`,
      [ids],
    ),
  );
  const twoThreads = new Set(rows.map((r) => Number(r.id)));
  expect(got.describe?.(ids, true) === null).toBe(twoThreads.size > 0);
  const clean = ids.filter((id) => !twoThreads.has(id));
  const expected = await db.tx.inTenant(scope, (tx) =>
    new RecallCandidateRepository().describe(scope, tx, clean, { threads: true, heads: false }),
  );
  const indexed = got.describe?.(clean, true);
  expect(indexed).toBeTruthy();
  const sorted = <T>(m: ReadonlyMap<number, T>) => [...m.entries()].sort(([a], [b]) => a - b);
  expect(sorted(indexed!.facts)).toEqual(sorted(expected.facts));
  const byId = <T extends { memoryId: number }>(list: readonly T[]) =>
    [...list].sort((a, b) => a.memoryId - b.memoryId);
  expect(byId(indexed!.threads)).toEqual(byId(expected.threads));
  if (expected.threads.length > 0) withNeighbours += 1;
  // Implicit threads: the same neighbours for tagged memories, and untagged ones get theirs.
  const implicitExpected = await db.tx.inTenant(scope, (tx) =>
    new RecallCandidateRepository().describe(scope, tx, clean, {
      threads: true,
      heads: false,
      implicitWindowMs: IMPLICIT_WINDOW_MS,
    }),
  );
  const implicitIndexed = got.describe?.(clean, true, IMPLICIT_WINDOW_MS);
  expect(implicitIndexed).toBeTruthy();
  expect(sorted(implicitIndexed!.facts)).toEqual(sorted(implicitExpected.facts));
  expect(byId(implicitIndexed!.threads)).toEqual(byId(implicitExpected.threads));
  if (implicitExpected.threads.length > expected.threads.length) withImplicit += 1;
}

/** The commands, applied as their owners (row-level security on) or, for purges, as the system. */
class World {
  private readonly ids: { id: number; owner: number }[] = [];
  /** Every id ever written, purged ones included. */
  readonly everyId: number[] = [];

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
      case 'update':
        return void (await asOwner(
          `UPDATE memories SET content = $2, content_hash = sha256(convert_to($2 || id::text, 'UTF8')), tags = $3
            WHERE id = $1`,
          [c.text, c.tags],
        ));
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
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility, tags, category, expanded_keywords,
                               project, importance, created_at)
         VALUES ($1, $2, $3, sha256(convert_to($3 || gen_random_uuid()::text, 'UTF8')), $4, $5, $6, $7, 'p1', $8,
                 coalesce($9::timestamptz, now()))
         RETURNING id`,
        [
          owner.tenantId,
          owner.userId,
          c.text,
          c.team ? 'team' : 'private',
          c.tags,
          c.category,
          c.keywords,
          c.importance,
          c.created,
        ],
      );
      return Number(rows[0].id);
    });
    this.ids.push({ id, owner: c.owner });
    this.everyId.push(id);
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
