import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeMemoryMcpClient, field } from '../support/claude-memory-mcp-client';
import { clientTeam, storeBody } from '../support/claude-memory-mcp-team';

/**
 * claude-memory-mcp's background sync engine (hybrid mode, sync.py) against the built API: the full
 * resync, the `?since=` pull with the `server_time` it was given, the pending-op pushes (whose store
 * body carries the client's own `local_id`), deletes that treat 404 as done, and the auth check.
 */

type Row = Record<string, unknown>;
type SyncAnswer = { memories: Row[]; server_time: string };

/** The fields `_full_resync` / `_pull_changes` index (`mem[...]`) or read with `.get()`. */
function asCached(mem: Row) {
  return {
    id: field(mem, 'id'),
    content: field(mem, 'content'),
    category: field(mem, 'category'),
    importance: field(mem, 'importance'),
    tags: mem.tags ?? '',
    expanded_keywords: mem.expanded_keywords ?? '',
    is_sensitive: Boolean(mem.is_sensitive),
    created_at: mem.created_at,
    updated_at: mem.updated_at,
    deleted_at: mem.deleted_at ?? null,
  };
}

describe('claude-memory-mcp sync engine (hybrid mode) against the built API', () => {
  const env = clientTeam();
  const { alice, dave } = env;
  const marker = `y${randomUUID().slice(0, 8)}`;

  beforeAll(() => env.start());
  afterAll(() => env.stop());

  const sync = async (who: ReturnType<typeof alice>, since?: string) =>
    (await who.api(
      'GET',
      `/api/memories/sync${since ? `?since=${encodeURIComponent(since)}` : ''}`,
    )) as SyncAnswer;

  it('pushes a pending store op verbatim (with local_id) and an orphan without force_sensitive', async () => {
    const pending = await alice().raw('POST', '/api/memories', {
      local_id: 7,
      content: `${marker} cached offline: the VPN needs the new client`,
      category: 'facts',
      tags: 'vpn',
      expanded_keywords: 'vpn client network access remote',
      importance: 0.6,
      force_sensitive: false,
    });
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body).toMatchObject({ id: expect.any(Number) });

    const orphan = await alice().raw('POST', '/api/memories', {
      content: `${marker} orphan: the wiki moved to docs.internal`,
      category: 'facts',
      tags: '',
      expanded_keywords: '',
      importance: 0.5,
    });
    expect(orphan.status, JSON.stringify(orphan.body)).toBe(200);
    expect(orphan.body).toMatchObject({ id: expect.any(Number) });
  });

  it('full resync then ?since=<server_time>: every field the cache stores, changes and deletions', async () => {
    const kept = await alice().api(
      'POST',
      '/api/memories',
      storeBody(`${marker} sync keeps this one`, {
        category: 'projects',
        tags: 'sync,cache',
        expanded_keywords: 'sync cache offline',
        importance: 0.7,
      }),
    );
    const full = await sync(alice());
    expect(full.server_time).toEqual(expect.any(String));
    const cached = full.memories.map(asCached);
    expect(cached.find((m) => m.id === kept.id)).toMatchObject({
      content: `${marker} sync keeps this one`,
      category: 'projects',
      importance: 0.7,
      tags: 'sync,cache',
      expanded_keywords: 'sync cache offline',
      is_sensitive: false,
      deleted_at: null,
    });
    expect(cached.every((m) => typeof m.created_at === 'string' && typeof m.updated_at === 'string')).toBe(
      true,
    );

    const added = await alice().api('POST', '/api/memories', storeBody(`${marker} sync added later`));
    await alice().tools.memory_update({ id: kept.id, importance: 0.9 });
    await alice().tools.memory_delete({ id: added.id });

    const delta = await sync(alice(), full.server_time);
    const changed = new Map(delta.memories.map((m) => [m.id, asCached(m)]));
    expect(changed.get(kept.id)).toMatchObject({ importance: 0.9, deleted_at: null });
    expect(changed.get(added.id)?.deleted_at).toEqual(expect.any(String));
    expect(Date.parse(delta.server_time)).toBeGreaterThanOrEqual(Date.parse(full.server_time));

    // sync.py at a52afe05 sends `?since=<server_time>` unencoded: its "+00:00" arrives as " 00:00".
    const unencoded = await alice().raw<SyncAnswer>('GET', `/api/memories/sync?since=${full.server_time}`);
    expect(unencoded.status, JSON.stringify(unencoded.body)).toBe(200);
    expect(unencoded.body.memories.map((m) => m.id)).toEqual(expect.arrayContaining([kept.id, added.id]));

    // Nothing changed since: rows inside the documented overlap window may come again, with the
    // same state, which the client's upsert by server id absorbs.
    const quiet = await sync(alice(), delta.server_time);
    for (const again of quiet.memories.map(asCached)) {
      expect(again).toEqual(changed.get(again.id) ?? again);
    }

    // Another tenant's engine never receives these rows.
    const daves = await sync(dave());
    expect(daves.memories.filter((m) => String(m.content).includes(marker))).toEqual([]);
  });

  it('delete ops: 200 when deleted, 200 again when repeated, 404 (taken as done) for an unknown id', async () => {
    const stored = await alice().api('POST', '/api/memories', storeBody(`${marker} sync delete target`));
    expect((await alice().raw('DELETE', `/api/memories/${String(stored.id)}`)).status).toBe(200);
    expect((await alice().raw('DELETE', `/api/memories/${String(stored.id)}`)).status).toBe(200);
    expect((await alice().raw('DELETE', '/api/memories/987654321')).status).toBe(404);
  });

  it('auth check: 200 for a good key, 401 for a rotated one; /health needs no key', async () => {
    const ok = await alice().raw('GET', '/api/auth-check');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'ok', user_id: 'alice' });
    expect((await claudeMemoryMcpClient(env.url(), 'rotated-key').raw('GET', '/api/auth-check')).status).toBe(
      401,
    );
    const health = await fetch(`${env.url()}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  });
});
