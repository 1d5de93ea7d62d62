import { Client as PgClient } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { settleSync } from '../support/sync-settle';

type Synced = {
  id: number;
  content: string;
  owner: string;
  visibility: string;
  deleted_at: string | null;
  expanded_keywords: string;
};
type Page = {
  memories: Synced[];
  tombstones: Array<{ id: number; deleted_at: string }>;
  next_cursor: string;
  has_more: boolean;
  server_time: string;
};
type Seed = Omit<Page, 'has_more'>;
type Failure = { code: string; detail: string };

describe('sync API through two built API processes (real Postgres + Redis)', () => {
  const team = teamFixture({ SYNC_PAGE_DEFAULT: '2', SYNC_PAGE_MAX: '3' });
  // Only there to bootstrap a user (alice) in another tenant of the same database.
  const other = teamFixture({ REDIS_URL: '' });
  let one: ApiProcess;
  let two: ApiProcess;
  let elsewhere: ApiProcess;
  let db: PgClient;

  beforeAll(async () => {
    [one, two, elsewhere] = await Promise.all([
      startApiProcess(team.env),
      startApiProcess(team.env),
      startApiProcess(other.env),
    ]);
    db = new PgClient({ connectionString: inject('databaseUrl') });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await Promise.all([one?.stop(), two?.stop(), elsewhere?.stop()]);
  });

  const as = (api: ApiProcess, who: 'alice' | 'bob') => client(api.url, team.keys[who]);
  const store = async (api: ApiProcess, content: string) => {
    const res = await as(api, 'alice').post<{ id: number }>('/api/memories', { content });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };
  /** Follows cursors to the end on `api`; returns ids in arrival order and the final cursor. */
  const pull = async (api: ApiProcess, cursor: string, who: 'alice' | 'bob' = 'alice') => {
    const ids: number[] = [];
    const tombstones: number[] = [];
    for (;;) {
      const res = await as(api, who).get<Page>(`/api/memories/sync?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(...res.body.memories.map((m) => m.id));
      tombstones.push(...res.body.tombstones.map((t) => t.id));
      cursor = res.body.next_cursor;
      if (!res.body.has_more) return { ids, tombstones, cursor, memories: res.body.memories };
    }
  };

  it('seeds the complete live set (streamed JSON), then continues with cursors on the other process', async () => {
    const kept = await store(one, `kept ${Date.now()}`);
    const removed = await store(two, `removed ${Date.now()}`);
    await as(two, 'bob').post('/api/memories', { content: `bob's ${Date.now()}` });
    expect((await as(one, 'alice').delete(`/api/memories/${removed}`)).status).toBe(200);

    const seed = await as(two, 'alice').get<Seed>('/api/memories/sync');
    expect(seed.status).toBe(200);
    expect(seed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(seed.body.memories.map((m) => m.id)).toEqual([kept]);
    expect(seed.body.server_time).toMatch(/\+00:00$/);

    const later = await store(two, `later ${Date.now()}`);
    await as(two, 'alice').delete(`/api/memories/${kept}`);
    await settleSync();
    // Every page to the end: a page may stop early (has_more), and the feed is at least once, so
    // `removed`, deleted before the seed, may come again.
    const changes: Array<[number, boolean]> = [];
    for (let cursor = seed.body.next_cursor; ;) {
      const res = await as(one, 'alice').get<Page>(`/api/memories/sync?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(200);
      changes.push(...res.body.memories.map((m): [number, boolean] => [m.id, m.deleted_at === null]));
      cursor = res.body.next_cursor;
      if (!res.body.has_more) break;
    }
    expect(changes.filter(([id]) => id !== removed)).toEqual([
      [later, true],
      [kept, false],
    ]);
    expect(changes.filter(([id]) => id === removed).every(([, live]) => !live)).toBe(true);
  });

  it('pages from the beginning with ?limit=, clamped to the maximum page size', async () => {
    for (let i = 0; i < 4; i += 1) await store(one, `paged ${i} ${Date.now()}`);
    const first = await as(one, 'alice').get<Page>('/api/memories/sync?limit=100');
    expect(first.status).toBe(200);
    expect(first.body.memories.length + first.body.tombstones.length).toBe(3);
    expect(first.body.has_more).toBe(true);
    const dflt = await as(two, 'alice').get<Page>(
      `/api/memories/sync?cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    expect(dflt.body.memories.length).toBeLessThanOrEqual(2);
  });

  it('delivers a row whose transaction began first but committed last (writer held open across processes)', async () => {
    const { rows } = await db.query<{ tenant_id: string; id: string }>(
      `SELECT u.tenant_id, u.id FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE t.slug = $1 AND u.username = 'alice'`,
      [team.tenant],
    );
    const seed = await as(one, 'alice').get<Seed>('/api/memories/sync');
    let cursor = seed.body.next_cursor;

    await db.query('BEGIN');
    await db.query(
      `SELECT set_config('role', 'memory_app', true), set_config('app.tenant_id', $1, true), set_config('app.user_id', $2, true)`,
      [rows[0].tenant_id, rows[0].id],
    );
    const held = await db.query<{ id: string }>(
      `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
       VALUES ($1, $2, 'held open', sha256('held open'::bytea)) RETURNING id`,
      [rows[0].tenant_id, rows[0].id],
    );
    const a = Number(held.rows[0].id);
    // B is not held up by A: one user's writes never queue behind each other…
    const b = await store(two, `B while A open ${Date.now()}`);
    // …but the feed holds B back while A, which began first, may still commit below it.
    const during = await pull(one, cursor);
    expect(during.ids).not.toContain(a);
    expect(during.ids).not.toContain(b);
    cursor = during.cursor;
    await db.query('COMMIT');
    await settleSync();
    const after = await pull(one, cursor);
    // A first, then B. The feed is at least once: a row committed before A may come again when
    // another transaction (a worker job) was open at the previous pull; clients upsert by id.
    expect(after.ids.filter((id) => id === a || id === b)).toEqual([a, b]);
    expect(after.ids.filter((id) => id !== a && id !== b).every((id) => id < a)).toBe(true);
  });

  it('maps cursor and since errors to 400, and reads since with + arriving as a space', async () => {
    const seed = await as(one, 'alice').get<Seed>('/api/memories/sync');
    const [body, sig] = seed.body.next_cursor.split('.');
    const tampered = await as(one, 'alice').get<Failure>(
      `/api/memories/sync?cursor=${body}.${sig.slice(1)}x`,
    );
    expect([tampered.status, tampered.body.code]).toEqual([400, 'invalid_cursor']);
    const foreign = await as(two, 'bob').get<Failure>(
      `/api/memories/sync?cursor=${encodeURIComponent(seed.body.next_cursor)}`,
    );
    expect([foreign.status, foreign.body.code]).toEqual([400, 'invalid_cursor']);
    const garbage = await as(one, 'alice').get<Failure>('/api/memories/sync?since=last-tuesday');
    expect([garbage.status, garbage.body.code]).toEqual([400, 'invalid_since']);
    const mixed = await as(one, 'alice').get<Failure>('/api/memories/sync?since=2020-01-01&limit=5');
    expect(mixed.status).toBe(400);

    const plus = await as(two, 'alice').get<Seed>('/api/memories/sync?since=2020-01-01T00:00:00+00:00');
    expect(plus.status).toBe(200);
    expect(plus.body.memories.some((m) => m.deleted_at !== null)).toBe(true);
    const future = await as(two, 'alice').get<Seed>('/api/memories/sync?since=9999-01-01T00:00:00Z');
    expect([future.status, future.body.memories]).toEqual([200, []]);
    expect(future.body.next_cursor).toMatch(/^[\w-]+\.[\w-]+$/);
  });

  it("follows what bob can see: alice's team memory, a memory shared with him, and tombstones when they go", async () => {
    const bobSeed = await as(one, 'bob').get<Seed>('/api/memories/sync');
    expect(bobSeed.status).toBe(200);
    let cursor = bobSeed.body.next_cursor;
    await settleSync();
    cursor = (await pull(two, cursor, 'bob')).cursor;

    const teamRes = await as(one, 'alice').post<{ id: number }>('/api/memories', {
      content: `alice team ${Date.now()}`,
      visibility: 'team',
    });
    const privateId = await store(two, `alice private ${Date.now()}`);
    await settleSync();
    let seen = await pull(two, cursor, 'bob');
    expect(seen.ids).toEqual([teamRes.body.id]);
    expect(seen.memories[0]).toMatchObject({ owner: 'alice', visibility: 'team' });
    cursor = seen.cursor;

    // Sharing is a row in memory_shares (the sharing routes write exactly this).
    const { rows } = await db.query<{ id: string }>(
      `SELECT u.id FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE t.slug = $1 AND u.username = 'bob'`,
      [team.tenant],
    );
    await db.query(
      `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
       SELECT id, owner_id, $2, tenant_id, 'read' FROM memories WHERE id = $1`,
      [privateId, rows[0].id],
    );
    await settleSync();
    seen = await pull(one, cursor, 'bob');
    expect([seen.ids, seen.tombstones]).toEqual([[privateId], []]);
    cursor = seen.cursor;

    expect(
      (await as(two, 'alice').put(`/api/memories/${teamRes.body.id}`, { visibility: 'private' })).status,
    ).toBe(200);
    await db.query(`DELETE FROM memory_shares WHERE memory_id = $1`, [privateId]);
    await settleSync();
    seen = await pull(two, cursor, 'bob');
    expect([seen.ids, seen.tombstones.sort()]).toEqual([[], [teamRes.body.id, privateId].sort()]);

    // A user of another tenant hears of none of it, not even from the beginning.
    const fresh = await client(elsewhere.url, other.keys.alice).get<Page>('/api/memories/sync?limit=100');
    expect(fresh.status).toBe(200);
    const named = [...fresh.body.memories.map((m) => m.id), ...fresh.body.tombstones.map((t) => t.id)];
    expect(named).not.toContain(teamRes.body.id);
    expect(named).not.toContain(privateId);
  });
});
