import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { teamFixture } from '../support/e2e-env';

type Exported = Record<string, unknown> & { id: number; content: string; is_sensitive: boolean };

const SECRET = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Exported);
/** What an exact copy must repeat: everything but the new id and what names the source account's rows. */
const restorable = ({ id: _id, is_sensitive: _s, links: _l, shares: _sh, ...rest }: Exported) => rest;

describe('export and exact re-import (built API process)', () => {
  const team = teamFixture({ MEMORY_ENCRYPTION_KEY: 'export import e2e passphrase 42' });
  let api: ApiProcess;
  let alice: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    alice = client(api.url, team.keys.alice);
    bob = client(api.url, team.keys.bob);
  });
  afterAll(async () => {
    await api?.stop();
  });

  const store = async (body: Record<string, unknown>) => {
    const res = await alice.post<{ id: number }>('/api/memories', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };

  it('exports alice’s memories as JSONL and bob re-imports them field for field', async () => {
    const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const old = await store({ content: 'CI runs on GitHub Actions', category: 'decisions', tags: 'ci' });
    await store({
      content: 'CI runs on Buildkite since March',
      category: 'decisions',
      tags: ['ci', 'buildkite'],
      expanded_keywords: 'pipeline continuous integration',
      importance: 0.9,
      project: 'platform',
      visibility: 'private',
      expires_at: expires,
      supersedes: old,
      // Its code and branch come back with it.
      anchors: [
        {
          path: '.buildkite/pipeline.yml',
          line_start: 3,
          line_end: 9,
          commit: 'abc1234',
          hash: 'a'.repeat(40),
        },
      ],
      branch: 'feature/ci',
    });
    await store({ content: `the staging token is ${SECRET}`, category: 'runbooks', project: 'platform' });
    await store({ content: 'Prefer small pull requests', category: 'preferences', visibility: 'private' });
    // A team fact: bob sees it already, so his import answers it instead of making a second team row.
    const teamFact = await store({
      content: 'Deploys go out on Tuesdays',
      category: 'facts',
      visibility: 'team',
    });

    const exported = await alice.get<string>('/api/memories/export?format=jsonl');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const text = typeof exported.body === 'string' ? exported.body : JSON.stringify(exported.body);
    expect(text).not.toContain(SECRET);
    const original = lines(text);
    expect(original).toHaveLength(5);
    expect(original[1]).toMatchObject({
      links: [{ id: old, link_type: 'supersedes' }],
      tags: ['ci', 'buildkite'],
      anchors: [
        {
          repo: 'platform',
          path: '.buildkite/pipeline.yml',
          line_start: 3,
          line_end: 9,
          commit: 'abc1234',
          hash: 'a'.repeat(40),
        },
      ],
      branch: 'feature/ci',
    });
    expect(original[2]).toMatchObject({ is_sensitive: true, content: expect.stringContaining('[REDACTED:') });

    // Bob is a fresh user: nothing of alice's (team memories included) is in his export.
    expect(lines((await bob.get<string>('/api/memories/export?format=jsonl')).body ?? '')).toEqual([]);
    const imported = await bob.post<Array<{ id: number; duplicate_of?: number }>>(
      '/api/memories/import',
      text,
      {
        'content-type': 'application/x-ndjson',
      },
    );
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.map((r) => r.duplicate_of)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      teamFact,
    ]);

    const copy = await bob.get<Exported[]>('/api/memories/export?format=json');
    expect(copy.status).toBe(200);
    expect(copy.body.map(restorable)).toEqual(original.slice(0, 4).map(restorable));
    expect(copy.body.map((m) => m.id)).not.toEqual(original.map((m) => m.id));
    // The supersedes link between two imported memories is made again between the new rows.
    expect(copy.body[1].links).toEqual([{ id: copy.body[0].id, link_type: 'supersedes' }]);
  });

  it('imports a JSON export too, and refuses an invalid item by index without storing any', async () => {
    const json = await alice.get<Exported[]>('/api/memories/export?format=json&project=platform');
    expect(json.body.map((m) => m.project)).toEqual(['platform', 'platform']);
    const bad = [
      ...json.body,
      { ...json.body[0], created_at: new Date(Date.now() + 3_600_000).toISOString() },
    ];
    const refused = await bob.post<{ detail: string }>('/api/memories/import', bad);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatch(/^2\.created_at: /);
    const malformed = await bob.post('/api/memories/import', '{"content":"a"}\n{not json', {
      'content-type': 'application/x-ndjson',
    });
    expect(malformed.status).toBe(400);
  });

  it('includes deleted memories only when asked, and answers markdown as text/markdown', async () => {
    const id = await store({ content: 'A note about to be deleted', category: 'facts' });
    expect((await alice.delete(`/api/memories/${id}`)).status).toBe(200);
    const live = await alice.get<Exported[]>('/api/memories/export');
    expect(live.body.map((m) => m.id)).not.toContain(id);
    const all = await alice.get<Exported[]>('/api/memories/export?include_deleted=true');
    expect(all.body.find((m) => m.id === id)).toMatchObject({ deleted_at: expect.any(String) });

    const md = await alice.get<string>('/api/memories/export?format=markdown');
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.body).toMatch(/^# Memory export\n/);
    expect(md.body).toContain('## decisions');
    expect(md.body).toContain('> CI runs on Buildkite since March');
    expect(md.body).not.toContain(SECRET);
  });

  it('refuses bad parameters and callers without a key', async () => {
    expect((await alice.get('/api/memories/export?format=csv')).status).toBe(400);
    expect((await alice.get('/api/memories/export?since=yesterday')).status).toBe(400);
    expect((await client(api.url).get('/api/memories/export')).status).toBe(401);
  });
});
