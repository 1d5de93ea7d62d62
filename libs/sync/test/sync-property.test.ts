import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Tx } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  openTestDatabase,
  startStreamingReplica,
  type StreamingReplica,
  type TestDatabase,
  type TestTenant,
} from '@app/testing';
import { asUser, principalIn, syncUseCases } from './sync-harness';

type Op =
  | { kind: 'insert'; pause: number }
  | { kind: 'update'; target: number; importance: number; pause: number }
  | { kind: 'delete'; target: number; pause: number }
  | { kind: 'restore'; target: number; pause: number }
  | { kind: 'purge'; target: number; pause: number };

const pause = fc.integer({ min: 0, max: 8 });
const target = fc.nat(50);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), pause }),
  fc.record({
    kind: fc.constant('update' as const),
    target,
    importance: fc.integer({ min: 0, max: 10 }),
    pause,
  }),
  fc.record({ kind: fc.constant('delete' as const), target, pause }),
  fc.record({ kind: fc.constant('restore' as const), target, pause }),
  fc.record({ kind: fc.constant('purge' as const), target, pause }),
);

interface Folded {
  content: string;
  importance: number;
  deleted: boolean;
}

/**
 * Writers commit on the primary; the reader pages either on the primary or on a streaming replica
 * of it, in the replica's own snapshots as replay reaches them (no read-your-writes wait): the
 * settled-horizon rule must hold for a standby's snapshots too.
 */
describe.each([
  { reader: 'the primary', replicated: false },
  { reader: 'a streaming replica', replicated: true },
])(
  'sync fold property (real Postgres, concurrent writers and readers), pages read on $reader',
  ({ replicated }) => {
    let db: TestDatabase;
    let replica: StreamingReplica | undefined;
    let replicaDb: TestDatabase | undefined;
    let sync: ReturnType<typeof syncUseCases>;
    let tenant: TestTenant;
    let counter = 0;

    beforeAll(async () => {
      db = await openTestDatabase(inject('databaseUrl'), 12);
      sync = syncUseCases(db);
      tenant = await createTestTenant(db);
      if (replicated) {
        // The cursor key exists on the primary before the replica is asked for it.
        await sync.codecs.get();
        replica = await startStreamingReplica({ primaryUrl: inject('adminDatabaseUrl') });
        await replica.caughtUp();
        replicaDb = await openTestDatabase(replica.urlFor(inject('databaseUrl')), 4);
        sync = syncUseCases(db, undefined, replicaDb);
      }
    }, 120_000);
    afterAll(async () => {
      await replicaDb?.close();
      await replica?.destroy();
      await db.close();
    });

    const nextXidOnPrimary = async (): Promise<number> => {
      const rows: { next: string }[] = await db.dataSource.query(
        `SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next`,
      );
      return Number(rows[0].next);
    };

    /**
     * A standby's horizon is its snapshot's xmin, which transactions of any database in the cluster
     * hold back (other suites run beside this one): the last read waits until the replica has
     * replayed past every write and the horizon has passed them, as a client's next sync would.
     */
    async function replicaSettledPast(standby: TestDatabase, next: number): Promise<void> {
      await replica?.caughtUp();
      const deadline = Date.now() + 60_000;
      for (;;) {
        const rows: { horizon: string }[] = await standby.dataSource.query(
          `SELECT sync_horizon()::text AS horizon`,
        );
        if (Number(rows[0].horizon) >= next) return;
        if (Date.now() > deadline)
          throw new Error(`the replica's horizon stayed at ${rows[0].horizon} < ${next}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    /** Runs one writer's ops, each in its own transaction that sleeps before committing. */
    async function write(who: Principal, ops: readonly Op[], ids: number[]): Promise<void> {
      for (const o of ops) {
        await db.tx.inTenant(who, async (tx: Tx) => {
          const id = ids.length > 0 && o.kind !== 'insert' ? ids[o.target % ids.length] : 0;
          switch (o.kind) {
            case 'insert': {
              const content = `p${process.pid}-${++counter}`;
              const { rows } = await tx.query<{ id: string }>(
                `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
               VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8'))) RETURNING id`,
                [who.tenantId, who.userId, content],
              );
              ids.push(Number(rows[0].id));
              break;
            }
            case 'update':
              await tx.query(`UPDATE memories SET importance = $2, updated_at = now() WHERE id = $1`, [
                id,
                o.importance / 10,
              ]);
              break;
            case 'delete':
              await tx.query(`UPDATE memories SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL`, [
                id,
              ]);
              break;
            case 'restore':
              await tx.query(`UPDATE memories SET deleted_at = NULL WHERE id = $1`, [id]);
              break;
            case 'purge':
              await tx.query(`UPDATE memories SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL`, [
                id,
              ]);
              await tx.query(`DELETE FROM memories WHERE id = $1`, [id]);
              break;
          }
          if (o.pause > 0) await tx.query(`SELECT pg_sleep($1)`, [o.pause / 1000]);
        });
      }
    }

    it('folding every page in order equals the final state; no tombstone lost; no other user’s row', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(op, { minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 4 }),
          fc.array(op, { maxLength: 5 }),
          fc.integer({ min: 1, max: 4 }),
          async (writers, otherOps, pageSize) => {
            const me = await principalIn(tenant);
            const other = await principalIn(tenant);
            const mine: number[] = [];
            const theirs: number[] = [];
            const fold = new Map<number, Folded>();
            const seen = new Set<number>();
            let cursor: string | undefined;
            let writing = true;

            const pull = async () => {
              for (;;) {
                const page = await sync.changes.execute(me, { cursor, limit: pageSize });
                for (const m of page.memories) {
                  seen.add(m.id);
                  fold.set(m.id, {
                    content: m.content,
                    importance: m.importance,
                    deleted: m.deletedAt !== null,
                  });
                }
                for (const t of page.tombstones) {
                  seen.add(t.id);
                  fold.delete(t.id);
                }
                cursor = page.nextCursor;
                if (!page.hasMore) return;
              }
            };
            const reader = (async () => {
              while (writing) {
                await pull();
                await new Promise((r) => setTimeout(r, 2));
              }
            })();
            // Every writer shares `mine` so they target each other's rows too.
            await Promise.all([
              ...writers.map((ops) => write(me, ops, mine)),
              write(other, otherOps, theirs),
            ]);
            writing = false;
            await reader;
            if (replicaDb) await replicaSettledPast(replicaDb, await nextXidOnPrimary());
            await pull();

            const rows = await asUser<{ id: string; content: string; importance: number; deleted: boolean }>(
              db,
              me,
              `SELECT id, content, importance, deleted_at IS NOT NULL AS deleted FROM memories WHERE owner_id = $1`,
              [me.userId],
            );
            const actual = new Map(
              rows.map((r) => [
                Number(r.id),
                { content: r.content, importance: r.importance, deleted: r.deleted },
              ]),
            );
            expect(new Map([...fold].sort(([a], [b]) => a - b))).toEqual(
              new Map([...actual].sort(([a], [b]) => a - b)),
            );
            // Purged rows the reader had seen alive are gone from the fold only through a tombstone.
            for (const id of mine) if (!actual.has(id)) expect(fold.has(id)).toBe(false);
            for (const id of theirs) expect(seen.has(id)).toBe(false);
          },
        ),
        {
          numRuns: 15,
          seed: Number(process.env.SYNC_PROPERTY_SEED ?? Date.now() % 2 ** 31),
          endOnFailure: true,
        },
      );
    }, 180_000);
  },
);
