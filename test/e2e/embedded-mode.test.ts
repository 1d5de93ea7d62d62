import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client';
import { freePort, startNodeProcess, waitForHttp, type RunningProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

/** `npm start` with nothing configured: PGlite in DATA_DIR, in-process jobs, a printed admin key. */
describe('embedded mode (built API, no DATABASE_URL or REDIS_URL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memsvc-embedded-'));
  const running: RunningProcess[] = [];

  const start = async (env: Record<string, string> = {}) => {
    const port = await freePort();
    const proc = startNodeProcess('dist/apps/api/src/main.js', {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // This suite checks per-user isolation; team visibility has its own suite.
      DEFAULT_VISIBILITY: 'private',
      ...env,
    });
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/health/ready`, 90_000, proc);
    return { proc, url };
  };

  afterAll(async () => {
    for (const proc of running) await proc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints an admin key once, serves the memory routes, isolates users, and keeps data across restarts', async () => {
    const first = await start();
    const key = await waitFor(
      'printed admin key',
      () => first.proc.output().match(/\b(msk_[A-Za-z0-9]+_[A-Za-z0-9]+)\b/)?.[1],
    );
    const api = client(first.url, key);
    expect((await client(first.url).get('/health')).body).toEqual({ status: 'ok' });

    const stored = await api.post<{ id: number }>('/api/memories', {
      content: 'embedded mode keeps this',
      tags: 'x,y',
    });
    expect(stored.status).toBe(200);
    expect((await api.get(`/api/memories/${stored.body.id}`)).body).toMatchObject({
      content: 'embedded mode keeps this',
      tags: 'x,y',
    });
    // The admin can create a team member over REST (the CLI needs DATABASE_URL).
    const user = await api.post('/api/admin/users', { username: 'carol' });
    expect(user.status).toBe(201);
    const carolKey = await api.post<{ key: string }>('/api/admin/users/carol/keys', {
      scopes: ['memories:read', 'memories:write'],
    });
    expect(carolKey.status).toBe(201);
    const carol = client(first.url, carolKey.body.key);
    expect((await carol.get(`/api/memories/${stored.body.id}`)).status).toBe(404);

    // Secrets are encrypted with a key generated in the data directory (owner-only).
    const pin = `${randomBytes(8).toString('hex')}Zq`;
    const secret = await api.post<{ id: number }>('/api/memories', { content: `my password is ${pin}` });
    expect(secret.status).toBe(200);
    expect((statSync(join(dataDir, 'secret-store.key')).mode & 0o777).toString(8)).toBe('600');

    expect(await first.proc.stop('SIGTERM')).toBe(0);

    const second = await start();
    expect(second.proc.output()).not.toMatch(/msk_/);
    const again = client(second.url, key);
    const list = await again.get<{ memories: Array<{ id: number; content: string }> }>('/api/memories');
    expect(list.body.memories.map((m) => m.content)).toContain('embedded mode keeps this');
    expect((await client(second.url, carolKey.body.key).get('/api/auth-check')).body).toEqual({
      status: 'ok',
      user_id: 'carol',
    });
    // The same key after a restart: the secret still decrypts.
    expect((await again.post(`/api/memories/${secret.body.id}/secret`)).body).toEqual({
      id: secret.body.id,
      content: `my password is ${pin}`,
      category: expect.any(String),
      source: 'encrypted',
    });
    expect((await again.get(`/api/memories/${secret.body.id}`)).body).toMatchObject({ is_sensitive: true });

    // Recall's text leg: Postgres (PGlite) while the in-memory index loads, then the index, which
    // finds a memory stored after it loaded; carol never gets the admin's private memory.
    type Recalled = { memories: Array<{ id: number; explain: { text_source: string; text_rank: number } }> };
    const recall = (who: ReturnType<typeof client>, context: string) =>
      who.post<Recalled>('/api/memories/recall', { context, explain: true });
    const loading = await recall(again, 'embedded mode keeps');
    expect(loading.body.memories.map((m) => m.id)).toContain(stored.body.id);
    await waitFor('the text index', async () => {
      const found = await recall(again, 'embedded mode keeps');
      return found.body.memories[0]?.explain.text_source === 'index' ? true : undefined;
    });
    const later = await again.post<{ id: number }>('/api/memories', { content: 'pelican index freshness' });
    const indexed = await recall(again, 'pelican');
    expect(indexed.body.memories[0]).toMatchObject({
      id: later.body.id,
      explain: { text_source: 'index', text_rank: 1 },
    });
    const carols = await recall(client(second.url, carolKey.body.key), 'pelican');
    expect(carols.body.memories.map((m) => m.id)).not.toContain(later.body.id);
    await second.proc.stop('SIGTERM');
  });

  it('refuses a second process on the same data directory with a clear message', async () => {
    const first = await start();
    const port = await freePort();
    const second = startNodeProcess('dist/apps/api/src/main.js', {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
    });
    running.push(second);
    const code = await waitFor('second process to exit', () => second.child.exitCode ?? undefined, 60_000);
    expect(code).not.toBe(0);
    expect(second.output()).toMatch(/lock|in use|another process/i);
    expect((await client(first.url).get('/health')).status).toBe(200);
    await first.proc.stop('SIGTERM');
  });
});
