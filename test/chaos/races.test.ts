import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { indexInputHash } from '@app/jobs';
import { ChaosTally } from '@app/testing';
import { teamFixture } from '../support/e2e-env';
import { client, type JsonResponse } from '../support/http-client';
import { inPool } from '../support/openapi-operations';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { settleSync } from '../support/sync-settle';
import { waitFor } from '../support/wait-for';
import { ShareTimeline } from './share-timeline';

/**
 * Races through two built API processes and two workers on one database: an update right after its
 * store while the workers index; shares and unshares while the other user recalls, lists and syncs;
 * one import sent many times at once with one Idempotency-Key.
 */

const SCALE = Number(process.env.CHAOS_SCALE ?? 1);
const STORE_UPDATE_PAIRS = Math.round(80 * SCALE);
/** How many of them are then looked for by recall. */
const RECALLED = Math.round(20 * SCALE);
const WRITE_CONCURRENCY = 12;
/** Of those, how many then get CONCURRENT_UPDATES updates at once. */
const CONTESTED = Math.round(10 * SCALE);
const CONCURRENT_UPDATES = 6;
const SHARE_OPS = Math.round(80 * SCALE);
const SHARED_MEMORIES = 12;
const NEVER_SHARED = 6;
const TAGGED = 4;
const IDENTICAL_IMPORTS = Math.round(10 * SCALE);

/** A word the text leg indexes as itself (letters only, no stop word, not a date). */
const word = () => `zq${[...randomBytes(8)].map((b) => String.fromCharCode(97 + (b % 26))).join('')}`;

type Listed = { memories: Array<{ id: number; content: string; owner?: string }> };
type SyncPage = Listed & { tombstones: Array<{ id: number }>; next_cursor: string; has_more: boolean };

describe('races', () => {
  const tally = new ChaosTally('Races');
  const team = teamFixture({
    OUTBOX_POLL_INTERVAL_MS: '50',
    WORKER_CONCURRENCY: '8',
    MEMORY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  });
  let apis: ApiProcess[] = [];
  let workers: WorkerProcess[] = [];
  let db: Client;
  let calls = 0;

  beforeAll(async () => {
    [apis, workers] = await Promise.all([
      Promise.all([startApiProcess(team.env), startApiProcess(team.env)]),
      Promise.all([startWorkerProcess(team.env), startWorkerProcess(team.env)]),
    ]);
    db = new Client({ connectionString: inject('databaseUrl') });
    await db.connect();
  });
  afterAll(async () => {
    tally.report();
    await db?.end();
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
  });

  /** The next API process, round robin: no request sticks to one replica. */
  const as = (who: 'alice' | 'bob') => client(apis[calls++ % apis.length].url, team.keys[who]);
  const counted = <T>(res: JsonResponse<T>, what: string): JsonResponse<T> => {
    tally.status(res.status, what);
    return res;
  };

  it('an update right after its store (and six at once) while workers index: the last update is stored, embedded and found', async () => {
    const finals = new Map<number, { content: string; word: string }>();
    await inPool(STORE_UPDATE_PAIRS, WRITE_CONCURRENCY, async (i) => {
      const stored = counted(
        await as('alice').post<{ id: number }>('/api/memories', { content: `race ${i} first ${word()}` }),
        'store',
      );
      if (!tally.check(`store ${i} acknowledged`, stored.status === 200, () => JSON.stringify(stored.body)))
        return;
      tally.add('acknowledged writes');
      const updates = 1 + (i % 3);
      for (let u = 1; u <= updates; u++) {
        const w = word();
        const content = `race ${i} update ${u} ${w}`;
        const res = counted(await as('alice').put(`/api/memories/${stored.body.id}`, { content }), 'update');
        if (
          tally.check(
            `update ${i}.${u} acknowledged`,
            res.status === 200,
            () => `${res.status} ${JSON.stringify(res.body)}`,
          )
        ) {
          tally.add('acknowledged writes');
          finals.set(stored.body.id, { content, word: w });
        }
      }
    });
    expect(finals.size).toBe(STORE_UPDATE_PAIRS);

    // Concurrent updates of one memory through both replicas: one of them is the last, and the
    // index follows whichever that is.
    const contested = new Map<number, Set<string>>();
    for (const id of [...finals.keys()].slice(0, CONTESTED)) {
      const contents = Array.from({ length: CONCURRENT_UPDATES }, (_, u) => `contested ${id} ${u} ${word()}`);
      const answers = await Promise.all(
        contents.map((content) => as('alice').put(`/api/memories/${id}`, { content })),
      );
      for (const res of answers) {
        counted(res, 'concurrent update');
        if (
          tally.check(`concurrent update of ${id} acknowledged`, res.status === 200, () => String(res.status))
        ) {
          tally.add('acknowledged writes');
        }
      }
      contested.set(id, new Set(contents));
      finals.delete(id);
    }
    const ids = [...finals.keys(), ...contested.keys()];

    type Row = {
      id: string;
      content: string;
      expanded_keywords: string;
      tags: string[];
      wanted: string;
      indexed: string | null;
      status: string;
    };
    const rows = await waitFor(
      'every raced memory indexed from its final text',
      async () => {
        const { rows } = await db.query<Row>(
          `SELECT m.id::text, m.content, m.expanded_keywords, m.tags, encode(s.wanted_hash, 'hex') AS wanted,
                  encode(s.indexed_hash, 'hex') AS indexed, s.status
             FROM memories m JOIN memory_index_state s ON s.memory_id = m.id WHERE m.id = ANY($1::bigint[])`,
          [ids],
        );
        return rows.length === ids.length && rows.every((r) => r.indexed === r.wanted) ? rows : undefined;
      },
      90_000,
      200,
    );
    const vectors = await db.query<{ id: string; hashes: string[] }>(
      `SELECT e.memory_id::text AS id, array_agg(encode(e.input_hash, 'hex')) AS hashes
         FROM memory_embeddings e JOIN embedding_models m ON m.id = e.model_id AND m.status = 'active'
        WHERE e.memory_id = ANY($1::bigint[]) GROUP BY e.memory_id`,
      [ids],
    );
    const vectorOf = new Map(vectors.rows.map((v) => [Number(v.id), v.hashes]));
    for (const row of rows) {
      const id = Number(row.id);
      const expected = indexInputHash({
        content: row.content,
        expandedKeywords: row.expanded_keywords,
        tags: row.tags,
      });
      const kept = contested.has(id)
        ? contested.get(id)!.has(row.content)
        : row.content === finals.get(id)?.content;
      tally.check(`memory ${id} holds its last acknowledged update`, kept, () => row.content);
      tally.check(`memory ${id} wants the index of its stored text`, row.wanted === expected);
      tally.check(
        `memory ${id} has one vector, of its final text`,
        JSON.stringify(vectorOf.get(id)) === JSON.stringify([expected]),
        () => JSON.stringify(vectorOf.get(id)),
      );
      if (!kept) tally.add('lost');
    }
    // Recall by the last update's own word finds the memory (through either replica).
    const sample = [...finals].slice(0, RECALLED);
    await inPool(sample.length, 4, async (i) => {
      const [id, { word: w }] = sample[i];
      const res = counted(
        await as('alice').post<Listed>('/api/memories/recall', { context: w, limit: 5 }),
        'recall',
      );
      tally.check(
        `recall "${w}" finds memory ${id}`,
        res.body.memories?.some((m) => m.id === id) === true,
        () => JSON.stringify(res.body).slice(0, 200),
      );
    });
    tally.add('raced memories', ids.length);
  });

  it('shares and unshares while bob recalls, lists and syncs: bob sees only what some moment shared, and nothing after the last unshare', async () => {
    const timeline = new ShareTimeline();
    const marker = word();
    const tag = `race-${word()}`;
    const content = new Map<number, string>();
    const store = async (text: string, tags: string[] = []) => {
      const res = counted(
        await as('alice').post<{ id: number }>('/api/memories', {
          content: text,
          tags,
          visibility: 'private',
        }),
        'store',
      );
      expect(res.status).toBe(200);
      content.set(res.body.id, text);
      return res.body.id;
    };
    const shared: number[] = [];
    const never: number[] = [];
    for (let i = 0; i < SHARED_MEMORIES; i++) shared.push(await store(`${marker} shared ${i} ${word()}`));
    for (let i = 0; i < NEVER_SHARED; i++) never.push(await store(`${marker} never shared ${i} ${word()}`));
    const tagged: number[] = [];
    for (let i = 0; i < TAGGED; i++) {
      const id = await store(`${marker} tagged ${i} ${word()}`, [tag]);
      timeline.tag(id, tag);
      tagged.push(id);
    }
    const alices = new Set([...shared, ...never, ...tagged]);

    /** Checks one answer bob got for a request sent at t0 and answered at t1. */
    const judge = (what: string, t0: number, t1: number, ids: number[], texts: Map<number, string>) => {
      const feed = what === 'sync';
      tally.add('bob answers checked');
      for (const id of ids.filter((x) => alices.has(x))) {
        if (!timeline.everShared(id)) {
          tally.add('leaks');
          tally.check(`${what}: memory ${id} was never shared with bob`, false);
        } else {
          const moment = feed ? timeline.sharedBy(id, t1) : timeline.visibleDuring(id, t0, t1);
          tally.check(`${what}: memory ${id} was shared at some moment of the request`, moment);
        }
        tally.check(`${what}: memory ${id} shows alice's text`, texts.get(id) === content.get(id), () =>
          String(texts.get(id)),
        );
      }
    };
    const read = async <T extends Listed>(what: string, send: () => Promise<JsonResponse<T>>) => {
      const t0 = performance.now();
      const res = counted(await send(), what);
      const t1 = performance.now();
      if (res.status === 200) {
        const items = res.body.memories ?? [];
        judge(
          what,
          t0,
          t1,
          items.map((m) => m.id),
          new Map(items.map((m) => [m.id, m.content])),
        );
      }
      return res;
    };

    // bob's sync client: follows the cursor; the fold is what bob's device would hold.
    const fold = new Set<number>();
    let cursor: string | undefined;
    const syncPage = async () => {
      const query = cursor === undefined ? 'limit=7' : `limit=7&cursor=${encodeURIComponent(cursor)}`;
      const res = await read<SyncPage>('sync', () => as('bob').get<SyncPage>(`/api/memories/sync?${query}`));
      if (res.status !== 200) return false;
      for (const m of res.body.memories) fold.add(m.id);
      for (const t of res.body.tombstones) fold.delete(t.id);
      cursor = res.body.next_cursor;
      return res.body.has_more;
    };

    let sharing = true;
    const bob = async (kind: number) => {
      while (sharing) {
        if (kind === 0)
          await read('recall', () =>
            as('bob').post<Listed>('/api/memories/recall', { context: marker, limit: 50 }),
          );
        else if (kind === 1) await read('list', () => as('bob').get<Listed>('/api/memories?limit=200'));
        else if (kind === 2)
          await read('shared-with-me', () => as('bob').get<Listed>('/api/memories/shared-with-me'));
        else await syncPage();
      }
    };
    const alice = async (mine: number[], withTag: boolean, ops: number) => {
      for (let i = 0; i < ops; i++) {
        const r = Math.random();
        if (withTag && r < 0.2) {
          if (Math.random() < 0.5) {
            timeline.shareSent(`tag:${tag}`);
            counted(
              await as('alice').post('/api/memories/share-tag', { tag, shared_with: 'bob' }),
              'share-tag',
            );
          } else {
            counted(
              await as('alice').request('DELETE', '/api/memories/share-tag', { tag, shared_with: 'bob' }),
              'unshare-tag',
            );
            timeline.unshareAcknowledged(`tag:${tag}`);
          }
        } else {
          const id = mine[Math.floor(Math.random() * mine.length)];
          if (Math.random() < 0.5) {
            timeline.shareSent(id);
            counted(await as('alice').post(`/api/memories/${id}/share`, { shared_with: 'bob' }), 'share');
          } else {
            counted(await as('alice').delete(`/api/memories/${id}/share/bob`), 'unshare');
            timeline.unshareAcknowledged(id);
          }
        }
        tally.add('share changes');
      }
    };
    const readers = [0, 1, 2, 3, 3].map((kind) => bob(kind));
    try {
      const half = Math.ceil(SHARED_MEMORIES / 2);
      await Promise.all([
        alice(shared.slice(0, half), true, Math.ceil(SHARE_OPS / 2)),
        alice(shared.slice(half), false, Math.floor(SHARE_OPS / 2)),
      ]);
    } finally {
      sharing = false;
    }
    await Promise.all(readers);

    // The last unshare of everything, then a settle: bob's every view has none of it.
    for (const id of [...shared]) {
      counted(await as('alice').delete(`/api/memories/${id}/share/bob`), 'unshare');
      timeline.unshareAcknowledged(id);
    }
    counted(
      await as('alice').request('DELETE', '/api/memories/share-tag', { tag, shared_with: 'bob' }),
      'unshare-tag',
    );
    timeline.unshareAcknowledged(`tag:${tag}`);
    await settleSync();
    while (await syncPage()) {
      /* drain */
    }
    const still = [...fold].filter((id) => alices.has(id));
    tally.check("bob's synced set holds none of alice's unshared memories", still.length === 0, () =>
      still.join(', '),
    );
    const recalled = await read('final recall', () =>
      as('bob').post<Listed>('/api/memories/recall', { context: marker, limit: 50 }),
    );
    const found = recalled.body.memories.filter((m) => alices.has(m.id)).map((m) => m.id);
    tally.check('recall after the last unshare finds none of them', found.length === 0, () =>
      found.join(', '),
    );
    for (const id of alices) {
      const res = counted(await as('bob').get(`/api/memories/${id}`), 'get');
      tally.check(`memory ${id} answers bob 404 after the last unshare`, res.status === 404, () =>
        String(res.status),
      );
    }
    expect(tally.get('bob answers checked')).toBeGreaterThan(20);
    expect(still).toEqual([]);
  });

  it('one import sent many times at once with one Idempotency-Key, to both replicas: imported once, the same answer to all', async () => {
    const key = randomUUID();
    const label = `imp-${word()}`;
    const batch = [
      { content: `${label} plain one ${word()}`, tags: [label] },
      { content: `${label} plain two ${word()}`, tags: [label], created_at: '2024-03-01T10:00:00Z' },
      // Sensitive memories are never folded into a duplicate: only the key keeps a retry from copying them.
      { content: `${label} deploy token ${word()}`, tags: [label], force_sensitive: true },
      { content: `${label} ci secret ${word()}`, tags: [label], force_sensitive: true },
    ];
    const answers = await Promise.all(
      Array.from({ length: IDENTICAL_IMPORTS }, () =>
        as('alice').post<Array<{ id: number }>>('/api/memories/import', batch, { 'idempotency-key': key }),
      ),
    );
    for (const a of answers) counted(a, 'import');
    const first = answers.find((a) => a.status === 200);
    expect(first, JSON.stringify(answers.map((a) => a.status))).toBeDefined();
    for (const a of answers) {
      tally.check(
        'every import answers the first result (or a documented 409)',
        a.status === 409 || JSON.stringify(a.body) === JSON.stringify(first!.body),
        () => `${a.status} ${JSON.stringify(a.body).slice(0, 200)}`,
      );
    }
    const stored = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memories WHERE $1 = ANY(tags) AND deleted_at IS NULL`,
      [label],
    );
    const audited = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'memory.import' AND details->'ids' = $1::jsonb`,
      [JSON.stringify(first!.body.map((m) => m.id))],
    );
    tally.check(
      'the batch is stored once',
      stored.rows[0].n === batch.length,
      () => `${stored.rows[0].n} rows`,
    );
    tally.check('the import happened once', audited.rows[0].n === 1, () => `${audited.rows[0].n} audit rows`);
    tally.add('duplicated memories', Math.max(0, stored.rows[0].n - batch.length));
    tally.add('imports sent', IDENTICAL_IMPORTS);

    // The same key with two different batches at once: one batch is imported, the other refused.
    const other = randomUUID();
    const bodies = ['a', 'b'].map((v) => [
      { content: `${label} variant ${v} ${word()}`, tags: [`${label}-${v}`], force_sensitive: true },
    ]);
    const mixed = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        as('alice').post('/api/memories/import', bodies[i % 2], { 'idempotency-key': other }),
      ),
    );
    for (const a of mixed) counted(a, 'import');
    const statuses = mixed.map((a) => a.status);
    tally.check(
      'one batch wins, the other is refused as a reused key',
      statuses.filter((s) => s === 200).length === 3 && statuses.filter((s) => s === 422).length === 3,
      () => statuses.join(','),
    );
    const variants = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memories WHERE tags && $1::text[] AND deleted_at IS NULL`,
      [[`${label}-a`, `${label}-b`]],
    );
    tally.check(
      'exactly one of the two batches is stored',
      variants.rows[0].n === 1,
      () => `${variants.rows[0].n} rows`,
    );
    tally.assertClean();
  });
});
