import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';
import { fakeGithubToken } from '../support/fake-secrets';

interface SessionBody {
  id: string;
  project: string | null;
  status: string;
  summary: string | null;
  ended_at: string | null;
  created?: boolean;
}
interface DetailBody extends SessionBody {
  event_counts: Record<string, number>;
  events_total: number;
  events_processed: number;
}
interface TimelineBody {
  around: string | null;
  events: Array<{ id: number; kind: string; payload: Record<string, unknown> }>;
}

describe('sessions (built API, REST and MCP)', () => {
  // No REDIS_URL: the API's in-process queue runs the sessions.process job.
  const team = teamFixture({ REDIS_URL: '' });
  const repo = `r${randomUUID().slice(0, 8)}`;
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
  });
  afterAll(async () => api?.stop());

  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const patch = (who: ReturnType<typeof client>, path: string, body: unknown) =>
    who.request<SessionBody>('PATCH', path, body);
  const start = async (body: Record<string, unknown>) => {
    const res = await alice().post<SessionBody>('/api/sessions', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  /** Waits until the background job has processed every event of the session. */
  const processed = (id: string) =>
    waitFor('processed events', async () => {
      const res = await alice().get<DetailBody>(`/api/sessions/${id}`);
      return res.body.events_processed === res.body.events_total ? res.body : undefined;
    });

  describe('a session through REST', () => {
    const id = randomUUID();
    let secret: string;
    let memoryId: number;

    beforeAll(async () => {
      const started = await start({
        id,
        agent: 'claude-code',
        git_remote: `git@github.com:acme/${repo}.git`,
        git_branch: 'main',
      });
      expect(started).toMatchObject({
        id,
        project: `github.com/acme/${repo}`,
        status: 'active',
        created: true,
      });
      secret = fakeGithubToken();
      const events = await alice().post(`/api/sessions/${id}/events`, {
        events: [
          { kind: 'prompt', payload: { text: `use ${secret} to push` } },
          { kind: 'tool_call', payload: { tool: 'Bash', input: 'git push' } },
          { kind: 'correction', payload: { text: 'no, use pnpm instead of npm' } },
        ],
      });
      expect(events).toMatchObject({ status: 202, body: { accepted: 3, session_id: id } });
      const memory = await alice().post<{ id: number }>('/api/memories', { content: `${repo} uses pnpm` });
      expect(memory.status).toBe(200);
      memoryId = memory.body.id;
    });

    it('answers a repeated start with the same session', async () => {
      const again = await alice().post<SessionBody>('/api/sessions', { id, agent: 'claude-code' });
      expect(again.body).toMatchObject({ id, project: `github.com/acme/${repo}`, created: false });
      expect((await bob().post('/api/sessions', { id, agent: 'x' })).body).toMatchObject({
        code: 'session_id_taken',
      });
    });

    it('counts the events per kind once processed in the background', async () => {
      expect(await processed(id)).toMatchObject({
        event_counts: { prompt: 1, tool_call: 1, correction: 1, note: 0, observation: 0 },
        events_total: 3,
        events_processed: 3,
      });
    });

    it('never stores or answers a secret from a payload in clear', async () => {
      const timeline = await alice().get<TimelineBody>(`/api/sessions/${id}/timeline`);
      expect(timeline.status).toBe(200);
      expect(JSON.stringify(timeline.body)).not.toContain(secret);
      expect(timeline.body.events[0].payload.text).toMatch(/^use \[REDACTED:[a-z_-]+\] to push$/);
      const { rows } = await withDb((db) =>
        db.query(`SELECT payload::text AS p FROM session_events WHERE session_id = $1`, [id]),
      );
      expect(rows).toHaveLength(3);
      for (const row of rows as Array<{ p: string }>) expect(row.p).not.toContain(secret);
    });

    it('answers the events around the time a memory was created', async () => {
      const res = await alice().get<TimelineBody>(`/api/sessions/${id}/timeline?around=${memoryId}&window=2`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.around).toMatch(/\+00:00$/);
      // All three events came before the memory: the two nearest ones.
      expect(res.body.events.map((e) => e.kind)).toEqual(['tool_call', 'correction']);
    });

    it('lists the session by its project, whichever way the remote is written', async () => {
      const byUrl = await alice().get<{ sessions: SessionBody[] }>(
        `/api/sessions?project=${encodeURIComponent(`https://github.com/acme/${repo}`)}`,
      );
      expect(byUrl.body.sessions.map((s) => s.id)).toEqual([id]);
      const later = await alice().get<{ sessions: SessionBody[] }>(
        `/api/sessions?project=github.com/acme/${repo}&since=2999-01-01T00:00:00Z`,
      );
      expect(later.body.sessions).toEqual([]);
      expect((await alice().get('/api/sessions?limit=0')).status).toBe(400);
    });

    it('ends the session with a summary', async () => {
      const res = await patch(alice(), `/api/sessions/${id}`, {
        status: 'ended',
        summary: 'Switched to pnpm',
      });
      expect(res).toMatchObject({ status: 200, body: { status: 'ended', summary: 'Switched to pnpm' } });
      expect(res.body.ended_at).toMatch(/\+00:00$/);
    });

    it('hides it from another user: every route answers 404', async () => {
      expect((await bob().get(`/api/sessions/${id}`)).status).toBe(404);
      expect((await bob().get(`/api/sessions/${id}/timeline`)).status).toBe(404);
      expect((await patch(bob(), `/api/sessions/${id}`, { summary: 'mine now' })).status).toBe(404);
      const events = await bob().post(`/api/sessions/${id}/events`, {
        events: [{ kind: 'note', payload: {} }],
      });
      expect(events).toMatchObject({ status: 404, body: { code: 'session_not_found' } });
      const listed = await bob().get<{ sessions: SessionBody[] }>(
        `/api/sessions?project=github.com/acme/${repo}`,
      );
      expect(listed.body.sessions).toEqual([]);
      expect((await alice().get('/api/sessions/not-a-uuid')).status).toBe(404);
      expect((await alice().get<DetailBody>(`/api/sessions/${id}`)).body.events_total).toBe(3);
    });
  });

  describe('limits and scopes', () => {
    let id: string;

    beforeAll(async () => {
      id = (await start({ agent: 'cursor', project: `caps-${repo}` })).id;
    });

    it('refuses an oversized event, too many events and an oversized body, with a message', async () => {
      const big = await alice().post(`/api/sessions/${id}/events`, {
        events: [{ kind: 'note', payload: { text: 'x'.repeat(17_000) } }],
      });
      expect(big).toMatchObject({ status: 422, body: { code: 'event_too_large' } });
      expect((big.body as { detail: string }).detail).toMatch(/at most 16384/);
      const many = await alice().post(`/api/sessions/${id}/events`, {
        events: Array.from({ length: 101 }, () => ({ kind: 'note', payload: { text: 'n' } })),
      });
      expect(many).toMatchObject({ status: 422, body: { code: 'event_batch_too_large' } });
      const huge = await alice().post(`/api/sessions/${id}/events`, {
        events: Array.from({ length: 80 }, () => ({ kind: 'note', payload: { text: 'y'.repeat(15_000) } })),
      });
      expect(huge.status).toBe(413);
      const invalid = await alice().post(`/api/sessions/${id}/events`, {
        events: [{ kind: 'chat', payload: {} }],
      });
      expect(invalid).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
      expect((await alice().get<DetailBody>(`/api/sessions/${id}`)).body.events_total).toBe(0);
    });

    it('needs sessions:write to write and memories:read to read', async () => {
      const admin = client(api.url, team.keys.admin);
      const issued = await admin.post<{ key: string }>('/api/admin/users/alice/keys', {
        scopes: ['memories:read'],
        name: 'reader',
      });
      expect(issued.status).toBe(201);
      const reader = client(api.url, issued.body.key);
      expect((await reader.get(`/api/sessions/${id}`)).status).toBe(200);
      expect((await reader.post('/api/sessions', { agent: 'x' })).status).toBe(403);
      expect(
        (await reader.post(`/api/sessions/${id}/events`, { events: [{ kind: 'note', payload: {} }] })).status,
      ).toBe(403);
    });
  });

  describe('through MCP', () => {
    let aliceMcp: Client;
    let bobMcp: Client;

    beforeAll(async () => {
      aliceMcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.alice));
      bobMcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.bob));
    });
    afterAll(async () => {
      await aliceMcp?.close();
      await bobMcp?.close();
    });

    it('starts, notes and ends a session; another user cannot note in it', async () => {
      const started = await callTool(aliceMcp, 'session_start', {
        agent: 'claude-code',
        git_remote: `https://github.com/acme/${repo}-mcp`,
      });
      expect(started.isError, started.text).toBeFalsy();
      const session = started.structuredContent as unknown as SessionBody;
      expect(session).toMatchObject({ project: `github.com/acme/${repo}-mcp`, created: true });

      const note = await callTool(aliceMcp, 'session_note', {
        session_id: session.id,
        text: 'Decided: releases are cut from main',
      });
      expect(note.isError, note.text).toBeFalsy();
      expect(note.structuredContent).toEqual({ accepted: 1, duplicates: 0, session_id: session.id });
      const correction = await callTool(aliceMcp, 'session_note', {
        session_id: session.id,
        text: 'no, tag releases instead',
        kind: 'correction',
      });
      expect(correction.isError, correction.text).toBeFalsy();

      const foreign = await callTool(bobMcp, 'session_note', { session_id: session.id, text: 'sneaky' });
      expect(foreign.isError).toBe(true);
      expect(foreign.text).toContain('[session_not_found]');
      const bobEnd = await callTool(bobMcp, 'session_end', { session_id: session.id });
      expect(bobEnd.isError).toBe(true);

      const ended = await callTool(aliceMcp, 'session_end', {
        session_id: session.id,
        summary: 'Release process',
      });
      expect(ended.isError, ended.text).toBeFalsy();
      expect(ended.structuredContent).toMatchObject({
        id: session.id,
        status: 'ended',
        summary: 'Release process',
      });

      expect(await processed(session.id)).toMatchObject({
        event_counts: { note: 1, correction: 1 },
        events_total: 2,
      });
    });
  });
});
