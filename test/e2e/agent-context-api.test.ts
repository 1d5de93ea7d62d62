import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { adminKeyInOtherTenant } from '../support/other-tenant';
import { startApiProcess, type ApiProcess } from '../support/processes';

interface AgentContext {
  project: string;
  format: string;
  file: string;
  content: string;
  memory_ids: number[];
  omitted: number;
}

/**
 * `GET /api/projects/:project/agent-context` on the built API: the project (URL-encoded, any
 * remote form) rendered as each agent's rule file; the same for every teammate; private memories
 * and other tenants' never in it; a deleted memory gone from the next render; a bad format a 422.
 */
describe('project agent context (built API, REST)', () => {
  const team = teamFixture({ REDIS_URL: '', DEFAULT_VISIBILITY: 'team' });
  const repo = `pay-${randomUUID().slice(0, 8)}`;
  const project = `github.com/acme/${repo}`;
  const path = (format?: string, p = encodeURIComponent(project)) =>
    `/api/projects/${p}/agent-context${format === undefined ? '' : `?format=${format}`}`;
  let api: ApiProcess;
  const ids: Record<string, number> = {};

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const store = async (name: string, body: Record<string, unknown>, who = alice()) => {
    const res = await who.post<{ id: number }>('/api/memories', { project, category: 'decisions', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids[name] = res.body.id;
  };

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    // Stored through a git remote URL: the project's one identity.
    await store('deploy', {
      content: 'We deploy with Helm 3',
      importance: 0.9,
      project: `git@github.com:acme/${repo}.git`,
    });
    await store('tz', { content: 'Ledger timestamps are UTC', category: 'gotchas' });
    await store('freeze', { content: 'No merges on Fridays', importance: 0.4 });
    await store('private', { content: 'I try Bun locally', visibility: 'private' });
    await store('fact', { content: 'The service is written in TypeScript', category: 'facts' });
    const pinned = await client(api.url, team.keys.admin).post(`/api/memories/${ids.tz}/pin`, {
      scope: 'team',
    });
    expect(pinned.status).toBe(200);
  });
  afterAll(async () => {
    if (process.env.SHOW_API_OUTPUT) console.log(api?.output());
    await api?.stop();
  });

  it('renders each format for the URL-encoded project, the same for every teammate', async () => {
    const res = await alice().get<AgentContext>(path('claude-md'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ project, format: 'claude-md', file: 'CLAUDE.md', omitted: 0 });
    expect(res.body.memory_ids).toEqual([ids.tz, ids.deploy, ids.freeze]);
    expect(res.body.content).toMatch(new RegExp(`^<!-- team-memory:begin project=${project} -->\n`));
    expect(res.body.content).toContain(
      `#${ids.deploy} · decisions · by alice · importance 0.9\n\n> We deploy with Helm 3\n`,
    );
    expect(res.body.content).not.toContain('Bun');
    expect(res.body.content).not.toContain('TypeScript');
    expect((await bob().get<AgentContext>(path('claude-md'))).body.content).toBe(res.body.content);

    const agents = await alice().get<AgentContext>(path());
    expect(agents.body).toMatchObject({ format: 'agents-md', file: 'AGENTS.md' });
    const cursor = await alice().get<AgentContext>(path('cursor-rules'));
    expect(cursor.body.file).toBe('.cursor/rules/team-memory.mdc');
    expect(cursor.body.content).toMatch(/^---\ndescription: ".+"\nglobs:\nalwaysApply: true\n---\n/);
    // The project may also arrive as a remote URL.
    const viaUrl = await alice().get<AgentContext>(
      path('agents-md', encodeURIComponent(`https://${project}.git`)),
    );
    expect(viaUrl.body.content).toBe(agents.body.content);
  });

  it('drops a deleted memory from the next render', async () => {
    expect((await alice().delete(`/api/memories/${ids.freeze}`)).status).toBe(200);
    const res = await alice().get<AgentContext>(path());
    expect(res.body.memory_ids).toEqual([ids.tz, ids.deploy]);
    expect(res.body.content).not.toContain('Fridays');
  });

  it('answers 422 for an unknown format, 401 without a key', async () => {
    const bad = await alice().get<{ detail: string; code: string }>(path('vim'));
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain('format must be one of claude-md, agents-md, cursor-rules');
    expect((await client(api.url).get(path())).status).toBe(401);
  });

  it('never renders another tenant’s memories of the same project', async () => {
    const other = client(
      api.url,
      await adminKeyInOtherTenant(
        `e2e-other-${randomUUID().slice(0, 8)}`,
        'admin,memories:read,memories:write',
      ),
    );
    const mine = await other.post<{ id: number }>('/api/memories', {
      content: 'Another team deploys with Nomad',
      category: 'decisions',
      project,
      visibility: 'team',
    });
    expect(mine.status).toBe(200);
    const theirs = await other.get<AgentContext>(path());
    expect(theirs.body.memory_ids).toEqual([mine.body.id]);
    const ours = await alice().get<AgentContext>(path());
    expect(ours.body.memory_ids).not.toContain(mine.body.id);
    expect(ours.body.content).not.toContain('Nomad');
  });
});
