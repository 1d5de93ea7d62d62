import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { withDb } from '../support/superuser-db';

interface Version {
  memory_id: number;
  version: number;
  content: string;
  tags: string[];
  category: string;
  importance: number;
  author_id: string | null;
  author: string | null;
  replaced_by: string | null;
  created_at: string;
  replaced_at: string;
  changed_fields: string[];
}
interface Versions {
  memory_id: number;
  versions: Version[];
  next_before: number | null;
}

const versionRowsOf = (memoryId: number) =>
  withDb(
    async (db) =>
      (
        await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM memory_versions WHERE memory_id = $1`, [
          memoryId,
        ])
      ).rows[0].n,
  );

describe('memory version history (built API, REST)', () => {
  let api: ApiProcess;
  const team = teamFixture({ DEFAULT_VISIBILITY: 'private', REDIS_URL: '' });
  const m = randomUUID().slice(0, 8);

  beforeAll(async () => {
    api = await startApiProcess(team.env);
  });
  afterAll(async () => api?.stop());

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const admin = () => client(api.url, team.keys.admin);

  it('lists three edits as three versions, diffs them, restores one; hides them from a teammate without access; erasure leaves none', async () => {
    const stored = await alice().post<{ id: number }>('/api/memories', {
      content: `Deploys of ${m} run on Jenkins\nfrom the main branch`,
      tags: 'ci',
      category: 'runbooks',
    });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    const id = stored.body.id;
    const edit = async (body: Record<string, unknown>) => {
      const res = await alice().put(`/api/memories/${id}`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await edit({ content: `Deploys of ${m} run on GitHub Actions\nfrom the main branch` });
    await edit({ tags: ['ci', 'deploy'], importance: 0.9 });
    await edit({ category: 'decisions' });

    // Three edits, three versions, newest first.
    const listed = await alice().get<Versions>(`/api/memories/${id}/versions`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.memory_id).toBe(id);
    expect(listed.body.next_before).toBeNull();
    expect(listed.body.versions.map((v) => [v.version, v.changed_fields])).toEqual([
      [3, ['category']],
      [2, ['tags', 'importance']],
      [1, ['content']],
    ]);
    const users = await admin().get<{ users: { id: string; username: string }[] }>('/api/admin/users');
    const aliceId = users.body.users.find((u) => u.username === 'alice')!.id;
    expect(listed.body.versions[2]).toMatchObject({
      content: `Deploys of ${m} run on Jenkins\nfrom the main branch`,
      tags: ['ci'],
      category: 'runbooks',
      author_id: aliceId,
      author: 'alice',
      replaced_by: 'alice',
      created_at: expect.stringMatching(/\+00:00$/),
      replaced_at: expect.stringMatching(/\+00:00$/),
    });
    const paged = await alice().get<Versions>(`/api/memories/${id}/versions?limit=2`);
    expect(paged.body.versions.map((v) => v.version)).toEqual([3, 2]);
    expect(paged.body.next_before).toBe(2);
    const rest = await alice().get<Versions>(`/api/memories/${id}/versions?limit=2&before=2`);
    expect(rest.body.versions.map((v) => v.version)).toEqual([1]);

    const one = await alice().get<Version>(`/api/memories/${id}/versions/1`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ version: 1, content: expect.stringContaining('Jenkins') });

    // A diff between a version and the current state, and between two versions.
    const diff = await alice().get<Record<string, unknown>>(`/api/memories/${id}/versions/diff?from=1`);
    expect(diff.status, JSON.stringify(diff.body)).toBe(200);
    expect(diff.body).toMatchObject({
      memory_id: id,
      from: 1,
      to: 'current',
      changed_fields: ['content', 'tags', 'category', 'importance'],
      content_diff: [
        { op: 'delete', text: `Deploys of ${m} run on Jenkins` },
        { op: 'insert', text: `Deploys of ${m} run on GitHub Actions` },
        { op: 'equal', text: 'from the main branch' },
      ],
      unified: expect.stringContaining(
        `-Deploys of ${m} run on Jenkins\n+Deploys of ${m} run on GitHub Actions`,
      ),
    });
    const between = await alice().get<Record<string, unknown>>(
      `/api/memories/${id}/versions/diff?from=2&to=3`,
    );
    expect(between.body).toMatchObject({ changed_fields: ['tags', 'importance'], unified: '' });

    // A restore is a new change: the memory is as version 1 was, and the replaced state is version 4.
    const restored = await alice().post(`/api/memories/${id}/versions/1/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toEqual({
      memory_id: id,
      restored: 1,
      changed_fields: ['content', 'tags', 'category', 'importance'],
    });
    const now = await alice().get<Record<string, unknown>>(`/api/memories/${id}`);
    expect(now.body).toMatchObject({
      content: `Deploys of ${m} run on Jenkins\nfrom the main branch`,
      category: 'runbooks',
      importance: 0.5,
    });
    const after = await alice().get<Versions>(`/api/memories/${id}/versions`);
    expect(after.body.versions.map((v) => v.version)).toEqual([4, 3, 2, 1]);
    expect(after.body.versions[0]).toMatchObject({ category: 'decisions', replaced_by: 'alice' });
    const audit = await withDb(
      async (db) =>
        (
          await db.query<{ details: Record<string, unknown> }>(
            `SELECT details FROM audit_log WHERE action = 'memory.version.restore' AND target_id = $1`,
            [String(id)],
          )
        ).rows,
    );
    expect(audit).toEqual([{ details: expect.objectContaining({ restored: 1, version: 4 }) }]);

    // A teammate without access: 404 for the versions too, as for the memory.
    expect((await bob().get(`/api/memories/${id}`)).status).toBe(404);
    expect((await bob().get(`/api/memories/${id}/versions`)).status).toBe(404);
    expect((await bob().get(`/api/memories/${id}/versions/1`)).status).toBe(404);
    expect((await bob().get(`/api/memories/${id}/versions/diff?from=1`)).status).toBe(404);
    expect((await bob().post(`/api/memories/${id}/versions/1/restore`)).status).toBe(404);
    // Shared with him to read: he sees the history but may not restore (403).
    expect((await alice().post(`/api/memories/${id}/share`, { shared_with: 'bob' })).status).toBe(200);
    expect((await bob().get<Versions>(`/api/memories/${id}/versions`)).body.versions).toHaveLength(4);
    const refused = await bob().post(`/api/memories/${id}/versions/2/restore`);
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);

    // Erasure leaves no version behind.
    expect(await versionRowsOf(id)).toBe(4);
    const receipt = await admin().delete<Record<string, unknown>>('/api/admin/users/alice/data');
    expect(receipt.status, JSON.stringify(receipt.body)).toBe(200);
    expect(receipt.body).toMatchObject({ memories: 1, versions: 4 });
    expect(await versionRowsOf(id)).toBe(0);
    expect((await alice().get(`/api/memories/${id}/versions`)).status).toBe(404);
  });

  it('answers bad input with 4xx and a clear message', async () => {
    const stored = await alice().post<{ id: number }>('/api/memories', { content: `validation ${m}` });
    const id = stored.body.id;
    const cases: [string, 'GET' | 'POST', number, RegExp][] = [
      [`/api/memories/${id}/versions/abc`, 'GET', 422, /version must be a positive integer/],
      [`/api/memories/${id}/versions/0`, 'GET', 422, /version must be a positive integer/],
      [`/api/memories/${id}/versions/7`, 'GET', 404, /has no version 7/],
      [`/api/memories/${id}/versions?limit=0`, 'GET', 400, /limit/],
      [`/api/memories/${id}/versions?limit=abc`, 'GET', 400, /limit/],
      [`/api/memories/${id}/versions?before=-1`, 'GET', 400, /version must be a positive integer/],
      [`/api/memories/${id}/versions/diff`, 'GET', 400, /from/],
      [`/api/memories/${id}/versions/diff?from=x`, 'GET', 400, /version number/],
      [`/api/memories/${id}/versions/diff?from=1`, 'GET', 404, /has no version 1/],
      [`/api/memories/${id}/versions/5/restore`, 'POST', 404, /has no version 5/],
      [`/api/memories/abc/versions`, 'GET', 422, /memory id/],
      [`/api/memories/999999999999/versions`, 'GET', 404, /not found/],
    ];
    for (const [path, method, status, detail] of cases) {
      const res =
        method === 'GET'
          ? await alice().get<{ detail: string }>(path)
          : await alice().post<{ detail: string }>(path);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.detail, path).toMatch(detail);
    }
    // No change yet: an empty history, not an error.
    expect((await alice().get<Versions>(`/api/memories/${id}/versions`)).body.versions).toEqual([]);
  });
});
