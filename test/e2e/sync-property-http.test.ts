import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStreamingReplica, type StreamingReplica } from '@app/testing';
import { teamFixture } from '../support/e2e-env';
import { client, type JsonResponse } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { readsServed } from '../support/replica-metrics';
import { settleSync } from '../support/sync-settle';

/**
 * The fold property of libs/sync/test/sync-property.test.ts, through HTTP against two built API
 * processes sharing one database: concurrent REST writers for alice (alternating processes), bob
 * writing at the same time, and a reader paging alice's changes (alternating processes, random page
 * sizes). Folding every page in order must end at alice's final state — with every read on the
 * primary, and again with reads on a streaming replica of it.
 */

type Synced = {
  id: number;
  content: string;
  importance: number;
  owner: string;
  deleted_at: string | null;
  change_seq: number;
};
type Tombstone = { id: number; deleted_at: string; change_seq: number };
type Page = {
  memories: Synced[];
  tombstones: Tombstone[];
  next_cursor: string;
  has_more: boolean;
  server_time: string;
};
type Seed = Omit<Page, 'has_more'>;
type Who = 'alice' | 'bob';

type Op =
  | { kind: 'insert'; pause: number }
  | { kind: 'update'; target: number; content: boolean; importance: number; pause: number }
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
    content: fc.boolean(),
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

describe.each([
  { pages: 'the primary', replicated: false },
  { pages: 'a streaming replica (reads routed to it, read-your-writes)', replicated: true },
])(
  'sync fold property through two built API processes (real Postgres, concurrent HTTP), pages from $pages',
  ({ replicated }) => {
    const team = teamFixture();
    let apis: [ApiProcess, ApiProcess];
    let replica: StreamingReplica | undefined;
    let counter = 0;

    beforeAll(async () => {
      const env: Record<string, string> = { ...team.env };
      if (replicated) {
        replica = await startStreamingReplica({ primaryUrl: inject('adminDatabaseUrl') });
        await replica.caughtUp();
        env.DATABASE_REPLICA_URLS = replica.urlFor(inject('databaseUrl'));
      }
      apis = (await Promise.all([startApiProcess(env), startApiProcess(env)])) as [ApiProcess, ApiProcess];
    }, 120_000);
    afterAll(async () => {
      await Promise.all((apis ?? []).map((api) => api?.stop()));
      await replica?.destroy();
    });

    const as = (n: number, who: Who) => client(apis[n % 2].url, team.keys[who]);
    const expectStatus = (res: JsonResponse<unknown>, what: string, allowed: readonly number[]) => {
      if (!allowed.includes(res.status)) {
        throw new Error(`${what}: unexpected ${res.status} ${JSON.stringify(res.body)}`);
      }
    };

    /**
     * Runs one writer's script over REST, alternating processes per call. Writers of one user share
     * `ids`, so they race on each other's rows: 404 (purged meanwhile) and 409 on purge (restored
     * meanwhile) are legitimate answers; anything else fails the property.
     */
    async function write(
      who: Who,
      ops: readonly Op[],
      ids: number[],
      purged: Set<number>,
      run: number,
      start: number,
    ): Promise<void> {
      let call = start;
      for (const o of ops) {
        const api = () => as(call++, who);
        if (o.kind === 'insert') {
          const content = `h${process.pid}-r${run}-${who}-${++counter}`;
          const res = await api().post<{ id: number }>('/api/memories', { content });
          expectStatus(res, `insert ${content}`, [200]);
          ids.push(res.body.id);
        } else if (ids.length > 0) {
          const id = ids[o.target % ids.length];
          switch (o.kind) {
            case 'update': {
              const body = o.content
                ? {
                    content: `h${process.pid}-r${run}-${who}-${++counter}-edit`,
                    importance: o.importance / 10,
                  }
                : { importance: o.importance / 10 };
              expectStatus(await api().put(`/api/memories/${id}`, body), `update ${id}`, [200, 404]);
              break;
            }
            case 'delete':
              expectStatus(await api().delete(`/api/memories/${id}`), `delete ${id}`, [200, 404]);
              break;
            case 'restore':
              expectStatus(await api().post(`/api/memories/${id}/restore`), `restore ${id}`, [200, 404]);
              break;
            case 'purge': {
              expectStatus(await api().delete(`/api/memories/${id}`), `delete ${id}`, [200, 404]);
              const res = await api().delete(`/api/memories/${id}/purge`);
              expectStatus(res, `purge ${id}`, [200, 404, 409]);
              if (res.status === 200) purged.add(id);
              break;
            }
          }
        }
        if (o.pause > 0) await sleep(o.pause);
      }
    }

    it('folding every page in order equals the final state; purges arrive as tombstones; no other user’s row', async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 3 }),
          fc.array(op, { maxLength: 5 }),
          fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }),
          fc.boolean(),
          async (writers, bobOps, limits, fromStart) => {
            run += 1;
            const mine: number[] = [];
            const theirs: number[] = [];
            const purged = new Set<number>();
            const fold = new Map<number, Folded>();
            const seen = new Set<number>();
            const strangers: string[] = [];
            let lastSeq = 0;
            let page = 0;
            let cursor: string | undefined;

            if (!fromStart) {
              // The client flow: seed with the live set, then follow its cursor.
              const seed = await as(run, 'alice').get<Seed>('/api/memories/sync');
              expectStatus(seed, 'seed', [200]);
              for (const m of seed.body.memories) {
                fold.set(m.id, { content: m.content, importance: m.importance, deleted: false });
              }
              cursor = seed.body.next_cursor;
            }

            /** One page on the next process; returns has_more. */
            const next = async () => {
              const limit = limits[page % limits.length];
              const query =
                cursor === undefined
                  ? `limit=${limit}`
                  : `limit=${limit}&cursor=${encodeURIComponent(cursor)}`;
              const res = await as(run + page++, 'alice').get<Page>(`/api/memories/sync?${query}`);
              expectStatus(res, `page ${query}`, [200]);
              const items = [
                ...res.body.memories.map((m) => ({ seq: m.change_seq, apply: () => applyMemory(m) })),
                ...res.body.tombstones.map((t) => ({ seq: t.change_seq, apply: () => applyTombstone(t) })),
              ].sort((a, b) => a.seq - b.seq);
              for (const item of items) {
                // Never backwards; changes made by one transaction share their change_seq.
                if (item.seq < lastSeq) strangers.push(`change_seq ${item.seq} after ${lastSeq}`);
                lastSeq = item.seq;
                item.apply();
              }
              cursor = res.body.next_cursor;
              return res.body.has_more;
            };
            const applyMemory = (m: Synced) => {
              seen.add(m.id);
              if (m.owner !== 'alice') strangers.push(`row ${m.id} of ${m.owner}`);
              fold.set(m.id, {
                content: m.content,
                importance: m.importance,
                deleted: m.deleted_at !== null,
              });
            };
            const applyTombstone = (t: Tombstone) => {
              seen.add(t.id);
              fold.delete(t.id);
            };

            let writing = true;
            const reader = (async () => {
              while (writing) {
                while (await next()) {
                  /* drain */
                }
                await sleep(2);
              }
            })();
            reader.catch(() => undefined); // awaited below; keeps an early failure from going unhandled
            try {
              await Promise.all([
                ...writers.map((ops, i) => write('alice', ops, mine, purged, run, i)),
                write('bob', bobOps, theirs, new Set(), run, run),
              ]);
            } finally {
              writing = false;
            }
            await reader;
            await settleSync(); // what the writers committed is settled: the next pages hold all of it
            while (await next()) {
              /* drain what the writers left */
            }
            expect(await next()).toBe(false); // one more page: still up to date
            expect(strangers).toEqual([]);

            // Final state from the server: the seed's live set, and (for this run's rows) soft deletions.
            const live = await as(run + 1, 'alice').get<Seed>('/api/memories/sync');
            expectStatus(live, 'final seed', [200]);
            const actual = new Map(
              live.body.memories.map((m) => [m.id, { content: m.content, importance: m.importance }]),
            );
            const foldLive = new Map(
              [...fold]
                .filter(([, f]) => !f.deleted)
                .map(([id, f]) => [id, { content: f.content, importance: f.importance }]),
            );
            const sorted = <V>(m: Map<number, V>) => new Map([...m].sort(([a], [b]) => a - b));
            expect(sorted(foldLive)).toEqual(sorted(actual));

            const everything = await as(run, 'alice').get<Seed>(
              '/api/memories/sync?since=2000-01-01T00:00:00Z',
            );
            expectStatus(everything, 'since dump', [200]);
            const softDeleted = new Set(
              everything.body.memories.filter((m) => m.deleted_at !== null).map((m) => m.id),
            );
            for (const id of mine) {
              const state = actual.has(id) ? 'live' : softDeleted.has(id) ? 'deleted' : 'purged';
              const folded = fold.get(id);
              expect([id, folded === undefined ? 'purged' : folded.deleted ? 'deleted' : 'live']).toEqual([
                id,
                state,
              ]);
            }
            for (const id of purged) expect(fold.has(id), `purged ${id} still in the fold`).toBe(false);
            for (const id of theirs) expect(seen.has(id), `bob's ${id} in alice's pages`).toBe(false);
          },
        ),
        {
          numRuns: 8,
          seed: Number(process.env.SYNC_PROPERTY_SEED ?? Date.now() % 2 ** 31),
          endOnFailure: true,
        },
      );
      if (replicated) {
        // Reads went through the replica routing: alice's sync pages, which must include her own
        // recent writes, on the primary as 'horizon'. Pages read on a raw replica are the
        // integration variant's (libs/sync/test/sync-property.test.ts).
        const served = await Promise.all(apis.map((api) => readsServed(api.url)));
        expect(served.reduce((sum, s) => sum + (s.primary.horizon ?? 0), 0)).toBeGreaterThan(0);
      }
    }, 180_000);
  },
);
