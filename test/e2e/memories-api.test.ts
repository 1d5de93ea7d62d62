import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client as PgClient } from 'pg';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { teamFixture } from '../support/e2e-env';

type Stored = { id: number; category: string; importance: number };
type Listed = { memories: Array<Record<string, unknown>>; total: number };

describe('memory REST contract (built API process, real Postgres + Redis)', () => {
  const team = teamFixture({ MAX_CONTENT_BYTES: '16384', MAX_IMPORT_BATCH: '5', BODY_LIMIT_BYTES: '65536' });
  let api: ApiProcess;
  let alice: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;
  let anonymous: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    alice = client(api.url, team.keys.alice);
    bob = client(api.url, team.keys.bob);
    anonymous = client(api.url);
  });
  afterAll(async () => {
    await api?.stop();
  });

  const store = async (body: Record<string, unknown>) => {
    const res = await alice.post<Stored>('/api/memories', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  it('stores with seed defaults and returns integer ids', async () => {
    const res = await alice.post<Stored>('/api/memories', { content: 'We deploy with Helm' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(Number), category: 'facts', importance: 0.5 });
    expect(Number.isInteger(res.body.id)).toBe(true);
  });

  it('refuses identity fields in a body instead of ignoring them, and stores nothing', async () => {
    const before = (await alice.get<Listed>('/api/memories')).body.total;
    for (const [path, body] of [
      ['/api/memories', { content: 'As bob', user_id: 'bob' }],
      ['/api/memories', { content: 'In another tenant', tenant: 'other' }],
      ['/api/memories/import', [{ content: 'fine' }, { content: 'as bob', owner: 'bob' }]],
      ['/api/memories/recall', { context: 'helm', owner_id: 'bob' }],
    ] as const) {
      const res = await alice.post<{ detail: string; code: string }>(path, body);
      expect(res.status, path).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.detail).toMatch(/(user_id|tenant|1\.owner|owner_id): identity comes from the API key/);
    }
    expect((await alice.get<Listed>('/api/memories')).body.total).toBe(before);
  });

  it('returns the existing id for exact duplicate content instead of a second row', async () => {
    const first = await store({ content: 'Prefer pnpm over npm', category: 'preferences', importance: 0.8 });
    const again = await store({ content: '  Prefer pnpm   over npm ', category: 'facts' });
    expect(again).toEqual({ ...first, duplicate_of: first.id, match: 'exact', similarity: 1 });
    const list = await alice.get<Listed>('/api/memories?category=preferences');
    expect(list.body.memories.filter((m) => m.id === first.id)).toHaveLength(1);
  });

  it('replays the first response for a repeated Idempotency-Key and refuses the key with another body', async () => {
    const headers = { 'idempotency-key': `idem-${Date.now()}` };
    const a = await alice.post<Stored>('/api/memories', { content: 'idempotent write' }, headers);
    const b = await alice.post<Stored>('/api/memories', { content: 'idempotent write' }, headers);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    const c = await alice.post('/api/memories', { content: 'a different body' }, headers);
    expect(c.status).toBe(422);
    expect(c.body).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('lists only the caller’s memories in the seed shape, with filters and paging', async () => {
    const mine = await store({
      content: 'alice list item',
      tags: 'deploy, ci',
      project: 'atlas',
      importance: 0.9,
    });
    const theirs = await bob.post<Stored>('/api/memories', { content: 'bob list item', tags: 'deploy' });
    const res = await alice.get<Listed>('/api/memories?tag=deploy&limit=10000');
    expect(res.status).toBe(200);
    const ids = res.body.memories.map((m) => m.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.body.id);
    const item = res.body.memories.find((m) => m.id === mine.id);
    expect(item).toEqual({
      id: mine.id,
      content: 'alice list item',
      category: 'facts',
      tags: 'deploy,ci',
      importance: 0.9,
      project: 'atlas',
      is_sensitive: false,
      visibility: 'private',
      expires_at: null,
      owner: 'alice',
      shared_by: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      updated_at: expect.any(String),
      pinned: [],
    });
    const byProject = await alice.get<Listed>('/api/memories?project=atlas');
    expect(byProject.body.memories.map((m) => m.id)).toEqual([mine.id]);
    const paged = await alice.get<Listed>('/api/memories?limit=1&offset=0');
    expect(paged.body.memories).toHaveLength(1);
    expect(paged.body.total).toBeGreaterThan(1);
  });

  it('reports the same total on full, partial and past-the-end pages', async () => {
    const all = (await alice.get<Listed>('/api/memories?limit=10000')).body;
    expect(all.memories).toHaveLength(all.total);
    const pages = [
      { limit: 1, offset: 0, rows: 1 },
      { limit: 2, offset: all.total - 1, rows: 1 },
      { limit: 5, offset: all.total + 3, rows: 0 },
    ];
    for (const { limit, offset, rows } of pages) {
      const page = (await alice.get<Listed>(`/api/memories?limit=${limit}&offset=${offset}`)).body;
      expect(page.memories, `limit ${limit} offset ${offset}`).toHaveLength(rows);
      expect(page.total, `limit ${limit} offset ${offset}`).toBe(all.total);
    }
  });

  it('rejects negative or non-numeric paging with 400', async () => {
    for (const q of ['limit=-1', 'limit=abc', 'offset=-5', 'limit=1.5']) {
      const res = await alice.get(`/api/memories?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ detail: expect.any(String), code: 'validation_failed' });
    }
  });

  it('gets, updates, deletes, restores and purges — and bob gets 404 for every one of alice’s ids', async () => {
    const { id } = await store({ content: 'lifecycle memory', expanded_keywords: 'life cycle', tags: ['a'] });

    for (const res of [
      await bob.get(`/api/memories/${id}`),
      await bob.put(`/api/memories/${id}`, { content: 'bob was here' }),
      await bob.delete(`/api/memories/${id}`),
      await bob.post(`/api/memories/${id}/restore`),
      await bob.delete(`/api/memories/${id}/purge`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'memory_not_found' });
    }

    const got = await alice.get(`/api/memories/${id}`);
    expect(got.body).toMatchObject({
      id,
      content: 'lifecycle memory',
      expanded_keywords: 'life cycle',
      tags: 'a',
    });

    expect((await alice.put(`/api/memories/${id}`, {})).status).toBe(400);
    expect((await alice.put(`/api/memories/${id}`, { unknown: 1 })).body).toMatchObject({
      detail: 'No fields to update',
    });
    const updated = await alice.put(`/api/memories/${id}`, {
      content: 'lifecycle memory v2',
      importance: 0.7,
    });
    expect(updated.body).toEqual({ updated: id });
    expect((await alice.get(`/api/memories/${id}`)).body).toMatchObject({
      content: 'lifecycle memory v2',
      importance: 0.7,
    });

    expect((await alice.delete(`/api/memories/${id}/purge`)).status).toBe(409);
    const deleted = await alice.delete(`/api/memories/${id}`);
    expect(deleted.body).toEqual({ deleted: id, preview: 'lifecycle memory v2' });
    expect((await alice.delete(`/api/memories/${id}`)).body).toEqual({
      deleted: id,
      preview: '[already deleted]',
    });
    expect((await alice.get(`/api/memories/${id}`)).status).toBe(404);
    expect((await alice.put(`/api/memories/${id}`, { content: 'x' })).status).toBe(404);

    expect((await alice.post(`/api/memories/${id}/restore`)).body).toEqual({ restored: id });
    expect((await alice.get(`/api/memories/${id}`)).status).toBe(200);

    await alice.delete(`/api/memories/${id}`);
    expect((await alice.delete(`/api/memories/${id}/purge`)).body).toEqual({ purged: id });
    expect((await alice.get(`/api/memories/${id}`)).status).toBe(404);
    expect((await alice.delete(`/api/memories/${id}`)).status).toBe(404);
  });

  it('answers 404 for unknown ids and 422 for ids that are not positive integers (as seed 002)', async () => {
    expect((await alice.get('/api/memories/999999999')).status).toBe(404);
    expect((await alice.delete('/api/memories/999999999')).status).toBe(404);
    expect((await alice.get('/api/memories/abc')).status).toBe(422);
    expect((await alice.get('/api/memories/0')).status).toBe(422);
    expect((await alice.put('/api/memories/1.5', { content: 'x' })).status).toBe(422);
  });

  it('bulk-deletes by filter: a dry run only counts, and only the caller’s rows are touched', async () => {
    const tag = `bulk${Date.now()}`;
    await store({ content: 'bulk one', tags: tag });
    await store({ content: 'bulk two', tags: tag });
    const bobs = await bob.post<Stored>('/api/memories', { content: 'bob bulk', tags: tag });
    const dry = await alice.post('/api/memories/bulk-delete', { tag });
    expect(dry.body).toEqual({ matched: 2, deleted: 0, dry_run: true });
    expect((await alice.get<Listed>(`/api/memories?tag=${tag}`)).body.total).toBe(2);
    const real = await alice.post('/api/memories/bulk-delete', { tag, dry_run: false });
    expect(real.body).toEqual({ matched: 2, deleted: 2, dry_run: false });
    expect((await alice.get<Listed>(`/api/memories?tag=${tag}`)).body.total).toBe(0);
    expect((await bob.get(`/api/memories/${bobs.body.id}`)).status).toBe(200);
    expect((await alice.post('/api/memories/bulk-delete', { dry_run: false })).status).toBe(422);
  });

  it('imports a batch in order, all or nothing, with a documented maximum', async () => {
    const res = await alice.post<Stored[]>('/api/memories/import', [
      { content: 'import one', category: 'decisions' },
      { content: 'import two', importance: 0.1 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.map((r) => [r.category, r.importance])).toEqual([
      ['decisions', 0.5],
      ['facts', 0.1],
    ]);
    expect(res.body[1].id).toBeGreaterThan(res.body[0].id);

    const before = (await alice.get<Listed>('/api/memories?limit=10000')).body.total;
    const bad = await alice.post('/api/memories/import', [{ content: 'import three' }, { content: '' }]);
    expect(bad.status).toBe(422);
    const tooBig = await alice.post(
      '/api/memories/import',
      Array.from({ length: 6 }, (_, i) => ({ content: `b${i}` })),
    );
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toMatchObject({ code: 'batch_too_large' });
    expect((await alice.get<Listed>('/api/memories?limit=10000')).body.total).toBe(before);
  });

  it('answers bad input with the stated status and changes nothing already stored', async () => {
    const before = (await alice.get<Listed>('/api/memories?limit=10000')).body;
    const cases: Array<[string, unknown, number]> = [
      ['missing content', { category: 'facts' }, 422],
      ['empty content', { content: '   ' }, 422],
      ['content too large', { content: 'x'.repeat(16_385) }, 422],
      ['importance above 1', { content: 'imp', importance: 1.5 }, 422],
      ['importance not a number', { content: 'imp', importance: 'high' }, 422],
      ['category not a slug', { content: 'cat', category: 'two words!' }, 422],
      ['NUL byte', { content: 'nul\u0000byte' }, 400],
      ['lone surrogate', '{"content":"bad \\ud800 text"}', 400],
      ['__proto__ key', '{"content":"proto","__proto__":{"admin":true}}', 400],
      ['malformed JSON', '{"content": "unterminated', 400],
      ['JSON array instead of object', [1, 2], 422],
      ['body over the limit', { content: 'y'.repeat(70_000) }, 413],
      ['force_sensitive without a secret store', { content: 'token abc', force_sensitive: true }, 503],
    ];
    for (const [name, body, status] of cases) {
      const res = await alice.post('/api/memories', body);
      expect(res.status, name).toBe(status);
      expect(res.body, name).toMatchObject({ detail: expect.any(String), code: expect.any(String) });
    }
    const after = (await alice.get<Listed>('/api/memories?limit=10000')).body;
    expect(after).toEqual(before);
  });

  it('requires a valid key (401 with WWW-Authenticate) and reports the caller on auth-check', async () => {
    const none = await anonymous.get('/api/memories');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(none.body).toMatchObject({ detail: expect.any(String) });
    const wrong = await client(api.url, 'not-a-real-key').get('/api/memories');
    expect(wrong.status).toBe(401);
    expect((await alice.get('/api/auth-check')).body).toEqual({ status: 'ok', user_id: 'alice' });
  });

  it('records an audit row for every write with actor, key and request id', async () => {
    const requestId = `req-${Date.now()}`;
    const res = await alice.post<Stored>(
      '/api/memories',
      { content: 'audited write' },
      { 'x-request-id': requestId },
    );
    await alice.delete(`/api/memories/${res.body.id}`);
    const pg = new PgClient({ connectionString: inject('databaseUrl') });
    await pg.connect();
    try {
      const { rows } = await pg.query(
        `SELECT a.action, a.request_id, a.key_id IS NOT NULL AS has_key, u.username
           FROM audit_log a JOIN users u ON u.id = a.actor_id
          WHERE a.target_type = 'memory' AND a.target_id = $1 ORDER BY a.id`,
        [String(res.body.id)],
      );
      expect(rows.map((r) => r.action)).toEqual(['memory.create', 'memory.delete']);
      expect(rows[0]).toMatchObject({ request_id: requestId, has_key: true, username: 'alice' });
    } finally {
      await pg.end();
    }
  });

  it('serves health without auth and the OpenAPI document at /docs', async () => {
    expect((await anonymous.get('/health')).body).toEqual({ status: 'ok' });
    expect((await anonymous.get('/health/live')).status).toBe(200);
    expect((await anonymous.get('/health/ready')).status).toBe(200);
    const doc = await anonymous.get<{ paths: Record<string, unknown> }>('/docs/json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toContain('/api/memories');
    const metrics = await fetch(`${api.url}/metrics`);
    expect(await metrics.text()).toMatch(/http_request_duration_seconds/);
  });
});
