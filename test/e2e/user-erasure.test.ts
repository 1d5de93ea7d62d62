import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeVault } from '@app/testing';
import { teamFixture } from '../support/e2e-env';
import { withDb } from '../support/superuser-db';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

/** Rows anywhere that still belong to the user (the superuser connection bypasses RLS). */
const remaining = (userId: string) =>
  withDb(async (db) => {
    const counts: Record<string, number> = {};
    for (const [table, column] of [
      ['memories', 'owner_id'],
      ['memory_embeddings', 'owner_id'],
      ['memory_index_state', 'owner_id'],
      ['sync_audience_changes', 'user_id'],
      ['idempotency_keys', 'user_id'],
      ['secret_cleanup', 'owner_id'],
      ['memory_shares', 'owner_id'],
      ['memory_shares', 'shared_with'],
      ['tag_shares', 'owner_id'],
      ['tag_shares', 'shared_with'],
      ['memory_links', 'created_by'],
      ['sessions', 'user_id'],
      ['session_events', 'user_id'],
    ]) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`,
        [userId],
      );
      counts[table] = (counts[table] ?? 0) + rows[0].n;
    }
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox WHERE dispatched_at IS NULL AND payload->>'userId' = $1`,
      [userId],
    );
    counts.outbox = rows[0].n;
    return counts;
  });

describe("erasing a user's data (DELETE /api/admin/users/:id/data)", () => {
  const vault = new FakeVault();
  let api: ApiProcess;
  let team: ReturnType<typeof teamFixture>;

  beforeAll(async () => {
    const address = await vault.start();
    team = teamFixture({
      REDIS_URL: '',
      VAULT_ADDR: address,
      VAULT_TOKEN: vault.rootToken,
      OUTBOX_POLL_INTERVAL_MS: '50',
    });
    api = await startApiProcess(team.env);
  });

  afterAll(async () => {
    await api?.stop();
    await vault.stop();
  });

  it('leaves no row, vector, history, queued job or secret of the user, and answers a receipt', async () => {
    const alice = client(api.url, team.keys.alice);
    const bob = client(api.url, team.keys.bob);
    const marker = randomUUID().slice(0, 8);
    const plain = await alice.post<{ id: number }>('/api/memories', { content: `alice notes ${marker}` });
    const secret = await alice.post<{ id: number }>('/api/memories', {
      content: `deploy with postgres://admin:S3cr3t-${marker}@db:5432/app`,
    });
    const purged = await alice.post<{ id: number }>('/api/memories', { content: `temporary ${marker}` });
    await alice.request('POST', '/api/memories', JSON.stringify({ content: `keyed ${marker}` }), {
      'content-type': 'application/json',
      'idempotency-key': `erase-${marker}`,
    });
    await alice.delete(`/api/memories/${purged.body.id}`);
    await alice.delete(`/api/memories/${purged.body.id}/purge`);
    const bobs = await bob.post<{ id: number }>('/api/memories', { content: `bob keeps this ${marker}` });
    // Shares both ways: of her memories, by tag, and bob's with her.
    expect((await alice.post(`/api/memories/${plain.body.id}/share`, { shared_with: 'bob' })).status).toBe(
      200,
    );
    expect((await alice.post('/api/memories/share-tag', { tag: 'ops', shared_with: 'bob' })).status).toBe(
      200,
    );
    expect((await bob.post(`/api/memories/${bobs.body.id}/share`, { shared_with: 'alice' })).status).toBe(
      200,
    );
    // An agent session with a captured event.
    const session = await alice.post<{ id: string }>('/api/sessions', {
      agent: 'claude-code',
      project: 'erase',
    });
    expect(session.status, JSON.stringify(session.body)).toBeLessThan(300);
    const events = await alice.post(`/api/sessions/${session.body.id}/events`, {
      events: [{ kind: 'note', payload: { text: `remember ${marker}` } }],
    });
    expect(events.status).toBe(202);
    const users = await client(api.url, team.keys.admin).get<{ users: { id: string; username: string }[] }>(
      '/api/admin/users',
    );
    const aliceId = users.body.users.find((u) => u.username === 'alice')!.id;
    const ref = await withDb(
      async (db) =>
        (
          await db.query<{ secret_ref: string }>(`SELECT secret_ref FROM memories WHERE id = $1`, [
            secret.body.id,
          ])
        ).rows[0].secret_ref,
    );
    expect(vault.kv.readMetadata(ref).status).toBe(200);
    // Wait until her memories have vectors, so the erasure has some to remove.
    await waitFor('alice indexed', async () =>
      (await remaining(aliceId)).memory_embeddings >= 3 ? true : undefined,
    );

    const receipt = await client(api.url, team.keys.admin).delete<Record<string, unknown>>(
      `/api/admin/users/alice/data`,
    );
    expect(receipt.status, JSON.stringify(receipt.body)).toBe(200);
    expect(receipt.body).toMatchObject({
      user_id: aliceId,
      username: 'alice',
      memories: 3,
      embeddings: expect.any(Number),
      tombstones: expect.any(Number),
      shares: 3,
      sessions: 1,
      session_events: 1,
      idempotency_keys: 1,
      vault_secrets: 1,
      vault_secrets_deleted: 1,
    });
    expect(Number(receipt.body.embeddings)).toBeGreaterThanOrEqual(3);

    expect(await remaining(aliceId)).toEqual({
      memories: 0,
      memory_embeddings: 0,
      memory_index_state: 0,
      sync_audience_changes: 0,
      idempotency_keys: 0,
      secret_cleanup: 0,
      memory_shares: 0,
      tag_shares: 0,
      memory_links: 0,
      sessions: 0,
      session_events: 0,
      outbox: 0,
    });
    expect(vault.kv.readMetadata(ref).status).toBe(404);
    const audit = await withDb(
      async (db) =>
        (
          await db.query<{ details: { memories: number } }>(
            `SELECT details FROM audit_log WHERE action = 'user.data.erase' AND target_id = $1`,
            [aliceId],
          )
        ).rows,
    );
    expect(audit).toEqual([{ details: expect.objectContaining({ memories: 3, username: 'alice' }) }]);

    // Only alice's data went: bob's memory stays, and alice can start again.
    expect((await bob.get(`/api/memories/${bobs.body.id}`)).status).toBe(200);
    expect((await alice.get(`/api/memories/${plain.body.id}`)).status).toBe(404);
    expect((await alice.post('/api/memories', { content: `a fresh start ${marker}` })).status).toBe(200);
    // Members cannot erase anyone.
    expect((await bob.delete(`/api/admin/users/alice/data`)).status).toBe(403);
  });
});
