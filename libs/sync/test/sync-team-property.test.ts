import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Tx } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { asAdmin, asUser, principalIn, settle, syncUseCases } from './sync-harness';

/**
 * The fold property for a team: three users of one tenant write their own memories (team or
 * private, tagged or not), share and unshare them, and add and remove tag rules for each other,
 * all at once, while each of them, an admin key and a user of another tenant follow their feeds.
 * Folding every page in order must end, for every reader, at exactly what that reader sees.
 */

const TAGS = ['a', 'b'] as const;
type Tag = (typeof TAGS)[number];

type Op =
  | { kind: 'insert'; team: boolean; tags: Tag[]; pause: number }
  | { kind: 'update'; target: number; importance: number; pause: number }
  | { kind: 'retag'; target: number; tags: Tag[]; pause: number }
  | { kind: 'visibility'; target: number; team: boolean; pause: number }
  | { kind: 'delete' | 'restore' | 'purge'; target: number; pause: number }
  | { kind: 'share' | 'unshare'; target: number; to: number; pause: number }
  | { kind: 'shareTag' | 'unshareTag'; tag: Tag; to: number; pause: number };

const pause = fc.integer({ min: 0, max: 6 });
const target = fc.nat(50);
const to = fc.nat(5);
const tag = fc.constantFrom<Tag>(...TAGS);
const tags = fc.subarray<Tag>([...TAGS]);
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('insert' as const), team: fc.boolean(), tags, pause }),
  },
  fc.record({
    kind: fc.constant('update' as const),
    target,
    importance: fc.integer({ min: 0, max: 10 }),
    pause,
  }),
  fc.record({ kind: fc.constant('retag' as const), target, tags, pause }),
  fc.record({ kind: fc.constant('visibility' as const), target, team: fc.boolean(), pause }),
  fc.record({
    kind: fc.constantFrom('delete' as const, 'restore' as const, 'purge' as const),
    target,
    pause,
  }),
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constantFrom('share' as const, 'unshare' as const), target, to, pause }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('shareTag' as const, 'unshareTag' as const),
      tag,
      to,
      pause,
    }),
  },
);

/** Foreign key (a share of a memory purged meanwhile) and deadlock: the op rolled back, as a client retry would. */
const TOLERATED = new Set(['23503', '40P01']);

interface Folded {
  content: string;
  importance: number;
  deleted: boolean;
  visibility: string;
  tags: string;
}

describe('sync fold property for a team with shares and tag rules (real Postgres, concurrent)', () => {
  let db: TestDatabase;
  let sync: ReturnType<typeof syncUseCases>;
  let counter = 0;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 16);
    sync = syncUseCases(db);
  });
  afterAll(async () => db.close());

  async function apply(tx: Tx, who: Principal, o: Op, ids: number[], others: Principal[]): Promise<void> {
    const id = ids.length > 0 ? ids[('target' in o ? o.target : 0) % ids.length] : 0;
    const peer = 'to' in o ? others[o.to % others.length] : undefined;
    switch (o.kind) {
      case 'insert': {
        const content = `tp${process.pid}-${++counter}`;
        const { rows } = await tx.query<{ id: string }>(
          `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility, tags)
           VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')), $4, $5) RETURNING id`,
          [who.tenantId, who.userId, content, o.team ? 'team' : 'private', o.tags],
        );
        ids.push(Number(rows[0].id));
        return;
      }
      case 'update':
        await tx.query(`UPDATE memories SET importance = $2 WHERE id = $1`, [id, o.importance / 10]);
        return;
      case 'retag':
        await tx.query(`UPDATE memories SET tags = $2 WHERE id = $1`, [id, o.tags]);
        return;
      case 'visibility':
        await tx.query(`UPDATE memories SET visibility = $2 WHERE id = $1`, [
          id,
          o.team ? 'team' : 'private',
        ]);
        return;
      case 'delete':
        await tx.query(`UPDATE memories SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL`, [id]);
        return;
      case 'restore':
        await tx.query(`UPDATE memories SET deleted_at = NULL WHERE id = $1`, [id]);
        return;
      case 'purge':
        await tx.query(`DELETE FROM memories WHERE id = $1`, [id]);
        return;
      case 'share':
        await tx.query(
          `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
           SELECT id, owner_id, $2, tenant_id, 'read' FROM memories WHERE id = $1 ON CONFLICT DO NOTHING`,
          [id, peer!.userId],
        );
        return;
      case 'unshare':
        await tx.query(`DELETE FROM memory_shares WHERE memory_id = $1 AND shared_with = $2`, [
          id,
          peer!.userId,
        ]);
        return;
      case 'shareTag':
        await tx.query(
          `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission)
           VALUES ($1, $2, $3, $4, 'read') ON CONFLICT DO NOTHING`,
          [who.userId, o.tag, peer!.userId, who.tenantId],
        );
        return;
      case 'unshareTag':
        await tx.query(`DELETE FROM tag_shares WHERE owner_id = $1 AND tag = $2 AND shared_with = $3`, [
          who.userId,
          o.tag,
          peer!.userId,
        ]);
        return;
    }
  }

  /** One writer's script, each op in its own transaction that sleeps before committing. */
  async function write(who: Principal, ops: readonly Op[], ids: number[], others: Principal[]) {
    for (const o of ops) {
      try {
        await db.tx.inTenant(who, async (tx) => {
          await apply(tx, who, o, ids, others);
          if (o.pause > 0) await tx.query(`SELECT pg_sleep($1)`, [o.pause / 1000]);
        });
      } catch (error) {
        if (!TOLERATED.has(String((error as { code?: unknown }).code))) throw error;
      }
    }
  }

  /** A client following `who`'s feed with the given page sizes. */
  function reader(who: Principal, limits: readonly number[]) {
    const fold = new Map<number, Folded>();
    let cursor: string | undefined;
    let page = 0;
    const pull = async () => {
      for (;;) {
        const res = await sync.changes.execute(who, { cursor, limit: limits[page++ % limits.length] });
        for (const m of res.memories) {
          fold.set(m.id, {
            content: m.content,
            importance: m.importance,
            deleted: m.deletedAt !== null,
            visibility: m.visibility,
            tags: [...m.tags].sort().join(','),
          });
        }
        for (const t of res.tombstones) fold.delete(t.id);
        cursor = res.nextCursor;
        if (!res.hasMore) return;
      }
    };
    return { who, fold, pull };
  }

  /** What `who` sees, straight from the table (row-level security decides). */
  async function visible(who: Principal): Promise<Map<number, Folded>> {
    const rows = await asUser<Folded & { id: string; tags: string }>(
      db,
      who,
      `SELECT id, content, importance, deleted_at IS NOT NULL AS deleted, visibility,
              array_to_string(ARRAY(SELECT unnest(tags) ORDER BY 1), ',') AS tags
         FROM memories WHERE tenant_id = $1`,
      [who.tenantId],
    );
    return new Map(rows.map(({ id, ...rest }) => [Number(id), rest]));
  }

  const sorted = <V>(m: Map<number, V>) => new Map([...m].sort(([a], [b]) => a - b));

  it('every reader’s fold equals exactly what it sees; a user of another tenant hears nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 2 }), {
          minLength: 3,
          maxLength: 3,
        }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }),
        async (scripts, limits) => {
          const tenant = await createTestTenant(db);
          const users = [await principalIn(tenant), await principalIn(tenant), await principalIn(tenant)];
          const stranger = await principalIn(await createTestTenant(db));
          const readers = [...users, asAdmin(users[0]), stranger].map((who) => reader(who, limits));

          let writing = true;
          const polling = readers.map(async (r) => {
            while (writing) {
              await r.pull();
              await new Promise((resolve) => setTimeout(resolve, 3));
            }
          });
          try {
            await Promise.all([
              ...scripts.flatMap((userScripts, u) => {
                const ids: number[] = []; // a user's scripts race on each other's memories
                const others = users.filter((_, i) => i !== u);
                return userScripts.map((ops) => write(users[u], ops, ids, others));
              }),
              write(stranger, [{ kind: 'insert', team: true, tags: ['a'], pause: 0 }], [], []),
            ]);
          } finally {
            writing = false;
          }
          await Promise.all(polling);
          await settle(db);
          for (const r of readers) {
            await r.pull();
            expect(sorted(r.fold), `reader ${readers.indexOf(r)}`).toEqual(sorted(await visible(r.who)));
          }
          expect(readers[readers.length - 1].fold.size).toBe(1); // the stranger's own memory only
        },
      ),
      {
        numRuns: 10,
        seed: Number(process.env.SYNC_PROPERTY_SEED ?? Date.now() % 2 ** 31),
        endOnFailure: true,
      },
    );
  }, 240_000);
});
