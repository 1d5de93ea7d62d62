import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { runCli } from '../../apps/cli/src/cli';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';

interface StartupBody {
  project: string | null;
  budget: number;
  text: string;
  sections: {
    important: Array<{ id: number; owner: string }>;
    decisions: Array<{ id: number; supersedes: number[] }>;
    sessions: Array<{ id: string; owner: string; summary: string }>;
  };
  truncated: boolean;
  omitted: number;
}
interface SessionBody {
  id: string;
  owner: string;
}

/** A member key of a user in another tenant of the same database, made with the CLI. */
async function memberKeyInOtherTenant(tenant: string): Promise<string> {
  const config = () => loadConfig({ DATABASE_URL: inject('databaseUrl') });
  const quiet = { out: () => undefined, err: () => undefined };
  await runCli(['users', 'create', 'alice', '--tenant', tenant], { io: quiet, loadConfig: config });
  let out = '';
  const code = await runCli(['--json', 'keys', 'create', '--user', 'alice', '--tenant', tenant], {
    io: { out: (t) => void (out += t), err: () => undefined },
    loadConfig: config,
  });
  expect(code).toBe(0);
  return (JSON.parse(out) as { key: string }).key;
}

describe('startup context and team session visibility (built API)', () => {
  const team = teamFixture({ REDIS_URL: '', STARTUP_CONTEXT_CHARS: '3000' });
  const repo = `r${randomUUID().slice(0, 8)}`;
  const remote = `git@github.com:acme/${repo}.git`;
  const project = `github.com/acme/${repo}`;
  let api: ApiProcess;
  let stranger: ReturnType<typeof client>;

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const admin = () => client(api.url, team.keys.admin);
  const startup = (who: ReturnType<typeof client>, query: string) =>
    who.get<StartupBody>(`/api/context/startup${query}`);
  /** A session of `who` in the project, ended with a summary. */
  const endedSession = async (who: ReturnType<typeof client>, summary: string) => {
    const started = await who.post<SessionBody>('/api/sessions', {
      agent: 'claude-code',
      git_remote: remote,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const ended = await who.request('PATCH', `/api/sessions/${started.body.id}`, {
      status: 'ended',
      summary,
    });
    expect(ended.status).toBe(200);
    return started.body.id;
  };

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    stranger = client(api.url, await memberKeyInOtherTenant(`e2e-other-${randomUUID().slice(0, 8)}`));
  });
  afterAll(async () => api?.stop());

  describe('GET /api/context/startup', () => {
    const ids: Record<string, number> = {};
    let sessionId: string;

    beforeAll(async () => {
      const store = async (who: ReturnType<typeof client>, body: Record<string, unknown>) => {
        const res = await who.post<{ id: number }>('/api/memories', { visibility: 'team', ...body });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.id;
      };
      ids.rule = await store(bob(), {
        content: `${repo}: every change goes through review`,
        importance: 0.9,
        project,
      });
      ids.npm = await store(alice(), { content: `${repo} builds with npm`, category: 'decisions', project });
      ids.pnpm = await store(alice(), { content: `${repo} builds with pnpm`, project, supersedes: ids.npm });
      ids.mine = await store(alice(), {
        content: 'alice only',
        importance: 1,
        visibility: 'private',
        project,
      });
      sessionId = await endedSession(alice(), 'Moved the build to pnpm');
    });

    it('answers the block for a project given as a remote URL, within the default budget', async () => {
      const res = await startup(alice(), `?project=${encodeURIComponent(`https://github.com/acme/${repo}`)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = res.body;
      expect(body).toMatchObject({ project, budget: 3000, truncated: false, omitted: 0 });
      expect(body.sections.important.map((m) => m.id)).toEqual([ids.mine, ids.rule]);
      expect(body.sections.important[1].owner).toBe('bob');
      expect(body.sections.decisions).toEqual([
        expect.objectContaining({ id: ids.pnpm, supersedes: [ids.npm] }),
      ]);
      expect(body.sections.sessions).toEqual([
        expect.objectContaining({ id: sessionId, owner: 'alice', summary: 'Moved the build to pnpm' }),
      ]);
      expect(body.text.length).toBeLessThanOrEqual(3000);
      expect(body.text).toContain(`#${ids.pnpm} · facts · by alice`);
      expect(body.text).toContain(`replaces #${ids.npm}`);
      // The same data gives the same bytes.
      const again = await startup(alice(), `?project=${encodeURIComponent(remote)}`);
      expect(again.body.text).toBe(body.text);
      // A teammate sees the team memories, not alice's private one nor (by default) her session.
      const bobs = (await startup(bob(), `?project=${project}`)).body;
      expect(bobs.sections.important.map((m) => m.id)).toEqual([ids.rule]);
      expect(bobs.sections.sessions).toEqual([]);
      const strangers = (await startup(stranger, `?project=${project}`)).body;
      expect(strangers.sections).toEqual({
        pinned: [],
        requested: [],
        important: [],
        decisions: [],
        outdated: [],
        sessions: [],
      });
    });

    it('cuts to a small budget and says how many were left out', async () => {
      for (let i = 0; i < 4; i++) {
        const long = `${repo} runbook step ${i}: ${'restart the worker, then check the queue depth. '.repeat(4)}`;
        await alice().post('/api/memories', { content: long, importance: 0.85, project });
      }
      const res = await startup(alice(), `?project=${project}&budget=500`);
      expect(res.status).toBe(200);
      expect(res.body.text.length).toBeLessThanOrEqual(500);
      expect(res.body.truncated).toBe(true);
      expect(res.body.text).toContain(`${res.body.omitted} more not shown`);
    });

    it('refuses a bad budget or project with 422 and a message, and a missing key with 401', async () => {
      const notNumber = await startup(alice(), '?budget=lots');
      expect(notNumber).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
      expect((notNumber.body as unknown as { detail: string }).detail).toContain(
        'budget must be a whole number of characters',
      );
      for (const budget of ['100', '32001', '9999999']) {
        const res = await startup(alice(), `?budget=${budget}`);
        expect(res, budget).toMatchObject({ status: 422, body: { code: 'startup_budget_out_of_range' } });
        expect((res.body as unknown as { detail: string }).detail).toContain('between 500 and 32000');
      }
      const longProject = await startup(alice(), `?project=${'p'.repeat(300)}`);
      // The store's rule and message: no memory can have a longer project.
      expect(longProject).toMatchObject({
        status: 422,
        body: { code: 'validation_failed', detail: 'project: project is at most 200 characters' },
      });
      expect((await client(api.url).get('/api/context/startup')).status).toBe(401);
      expect((await client(api.url, 'wrong-key').get('/api/context/startup')).status).toBe(401);
    });
  });

  describe('team session visibility', () => {
    let sessionId: string;

    beforeAll(async () => {
      sessionId = await endedSession(alice(), 'Alice tuned the CI cache');
      await alice().post(`/api/sessions/${sessionId}/events`, {
        events: [{ kind: 'note', payload: { text: 'cache keyed on the lockfile' } }],
      });
    });
    afterAll(async () => {
      await admin().request('PATCH', '/api/admin/settings', { team_session_visibility: false });
    });

    const bobReads = async () => ({
      session: (await bob().get<SessionBody>(`/api/sessions/${sessionId}`)).status,
      timeline: (await bob().get(`/api/sessions/${sessionId}/timeline`)).status,
      listed: (
        await bob().get<{ sessions: SessionBody[] }>(`/api/sessions?team=true&project=${project}`)
      ).body.sessions.map((s) => s.id),
    });

    it('is off by default: a teammate gets 404 for another user’s session', async () => {
      expect((await admin().get('/api/admin/settings')).body).toEqual({
        team_session_visibility: false,
        admin_private_access: false,
        review_team_memories: false,
        proposal_auto_accept_hours: null,
        capture_branch_scope: true,
      });
      expect(await bobReads()).toEqual({ session: 404, timeline: 404, listed: [] });
    });

    it('is changed by an admin only, with a validated body', async () => {
      expect(
        (await alice().request('PATCH', '/api/admin/settings', { team_session_visibility: true })).status,
      ).toBe(403);
      expect((await alice().get('/api/admin/settings')).status).toBe(403);
      const empty = await admin().request('PATCH', '/api/admin/settings', {});
      expect(empty).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
      expect((empty.body as { detail: string }).detail).toContain('team_session_visibility');
      const wrongType = await admin().request('PATCH', '/api/admin/settings', {
        team_session_visibility: 'yes',
      });
      expect(wrongType.status).toBe(422);
      const on = await admin().request('PATCH', '/api/admin/settings', { team_session_visibility: true });
      expect(on).toMatchObject({ status: 200, body: { team_session_visibility: true } });
      expect((await admin().get('/api/admin/settings')).body).toEqual({
        team_session_visibility: true,
        admin_private_access: false,
        review_team_memories: false,
        proposal_auto_accept_hours: null,
        capture_branch_scope: true,
      });
    });

    it('once on, lets teammates read sessions and events but never change them (403)', async () => {
      expect(await bobReads()).toEqual({
        session: 200,
        timeline: 200,
        listed: [sessionId, expect.any(String)],
      });
      const detail = await bob().get<SessionBody & { events_total: number }>(`/api/sessions/${sessionId}`);
      expect(detail.body).toMatchObject({ owner: 'alice', events_total: 1 });
      const timeline = await bob().get<{ events: Array<{ payload: { text: string } }> }>(
        `/api/sessions/${sessionId}/timeline`,
      );
      expect(timeline.body.events.map((e) => e.payload.text)).toEqual(['cache keyed on the lockfile']);
      // Own sessions only, unless asked for the team's.
      expect(
        (await bob().get<{ sessions: SessionBody[] }>(`/api/sessions?project=${project}`)).body.sessions,
      ).toEqual([]);

      const change = await bob().request('PATCH', `/api/sessions/${sessionId}`, { summary: 'mine now' });
      expect(change).toMatchObject({ status: 403, body: { code: 'session_not_writable' } });
      const note = await bob().post(`/api/sessions/${sessionId}/events`, {
        events: [{ kind: 'note', payload: { text: 'sneaky' } }],
      });
      expect(note).toMatchObject({ status: 403, body: { code: 'session_not_writable' } });
      const after = await alice().get<SessionBody & { summary: string; events_total: number }>(
        `/api/sessions/${sessionId}`,
      );
      expect(after.body).toMatchObject({ summary: 'Alice tuned the CI cache', events_total: 1 });

      const startupOfBob = (await startup(bob(), `?project=${project}`)).body;
      expect(startupOfBob.sections.sessions.map((s) => s.id)).toContain(sessionId);
    });

    it('never shows the session to another tenant', async () => {
      expect((await stranger.get(`/api/sessions/${sessionId}`)).status).toBe(404);
      expect((await stranger.get(`/api/sessions/${sessionId}/timeline`)).status).toBe(404);
      const listed = await stranger.get<{ sessions: SessionBody[] }>('/api/sessions?team=true');
      expect(listed.body.sessions.map((s) => s.id)).not.toContain(sessionId);
      const patch = await stranger.request('PATCH', `/api/sessions/${sessionId}`, { summary: 'x' });
      expect(patch.status).toBe(404);
      const startupOfStranger = (await startup(stranger, `?project=${project}`)).body;
      expect(startupOfStranger.sections.sessions).toEqual([]);
    });

    it('turned off again, hides teammates’ sessions again', async () => {
      await admin().request('PATCH', '/api/admin/settings', { team_session_visibility: false });
      expect(await bobReads()).toEqual({ session: 404, timeline: 404, listed: [] });
      expect((await bob().request('PATCH', `/api/sessions/${sessionId}`, { summary: 'x' })).status).toBe(404);
    });
  });
});
