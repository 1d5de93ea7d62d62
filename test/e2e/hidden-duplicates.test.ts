import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';

/**
 * Bob edits a memory alice shared with him for writing. A text equal to another memory of alice's
 * that he cannot read must answer as any unique text does (and log nothing): otherwise each edit
 * would tell him whether alice holds that text. A duplicate he may read is named (409).
 */
describe('an edit to a text the owner holds in a memory the editor cannot see', () => {
  let api: ApiProcess;
  let mcp: McpClient;
  const team = teamFixture({ REDIS_URL: '' });
  const alice = () => client(api.url, team.keys.alice);
  const bob = () => client(api.url, team.keys.bob);
  const text = (what: string) => `${what} ${randomUUID()}`;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.bob));
  });
  afterAll(async () => {
    await mcp?.close();
    await api?.stop();
  });

  const store = async (content: string, visibility: 'private' | 'team' = 'private') => {
    const res = await alice().post<{ id: number }>('/api/memories', { content, visibility });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };
  const share = async (id: number, permission: 'read' | 'write') =>
    expect((await alice().post(`/api/memories/${id}/share`, { shared_with: 'bob', permission })).status).toBe(
      200,
    );
  /** A memory of alice's that bob may edit. */
  const editable = async () => {
    const id = await store(text('Shared runbook step'));
    await share(id, 'write');
    return id;
  };
  /** What an answer looks like once the ids in it are named by role. */
  const shape = (body: unknown, ids: Record<string, number>) =>
    Object.entries(ids).reduce(
      (json, [name, id]) => json.replace(new RegExp(`\\b${id}\\b`, 'g'), name),
      JSON.stringify(body),
    );
  const errorLines = () =>
    api
      .output()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));

  it('answers over REST exactly as for a unique text, reveals nothing of the hidden memory and logs nothing', async () => {
    const secretText = text('Alice keeps the payroll export on the blue drive');
    const hidden = await store(secretText);
    const [target, control] = [await editable(), await editable()];
    const logged = api.output().length;

    const colliding = await bob().put(`/api/memories/${target}`, { content: secretText });
    const unique = await bob().put(`/api/memories/${control}`, { content: text('A text nobody has') });
    expect(colliding.status).toBe(200);
    expect({ status: colliding.status, body: shape(colliding.body, { ID: target }) }).toEqual({
      status: unique.status,
      body: shape(unique.body, { ID: control }),
    });
    expect(JSON.stringify(colliding.body)).not.toContain(String(hidden));
    expect([...colliding.headers.keys()].sort()).toEqual([...unique.headers.keys()].sort());

    // He reads back his own edit; the hidden memory stays hidden, alice keeps both.
    expect((await bob().get(`/api/memories/${target}`)).body).toMatchObject({ content: secretText });
    expect((await bob().get(`/api/memories/${hidden}`)).status).toBe(404);
    expect((await alice().get(`/api/memories/${hidden}`)).body).toMatchObject({ content: secretText });
    // Nothing about the edits reached the log (4xx reads are logged at warn: bob's 404 above).
    expect(errorLines()).toEqual([]);
    const since = api.output().slice(logged);
    expect(since).not.toMatch(/"method":"PUT"|database refused/);
  });

  it('answers the MCP memory_update tool the same way', async () => {
    const secretText = text('Alice prefers the night deploy window');
    await store(secretText);
    const [target, control] = [await editable(), await editable()];
    const colliding = await callTool(mcp, 'memory_update', { id: target, content: secretText });
    const unique = await callTool(mcp, 'memory_update', { id: control, content: text('Unique words') });
    expect(colliding.isError, colliding.text).toBeFalsy();
    expect(shape(colliding, { ID: target })).toBe(shape(unique, { ID: control }));
    expect(errorLines()).toEqual([]);
  });

  it('gives the same answer to his next edit to that text, whether or not alice had it', async () => {
    const answers: string[] = [];
    for (const aliceHasIt of [true, false]) {
      const copy = text('Rotate the staging TLS certificate');
      if (aliceHasIt) await store(copy);
      const [first, second] = [await editable(), await editable()];
      expect((await bob().put(`/api/memories/${first}`, { content: copy })).status).toBe(200);
      const again = await bob().put(`/api/memories/${second}`, { content: copy });
      const viaMcp = await callTool(mcp, 'memory_update', { id: second, content: copy });
      answers.push(
        shape({ rest: [again.status, again.body], mcp: viaMcp }, { FIRST: first, SECOND: second }),
      );
    }
    expect(answers[0]).toBe(answers[1]);
    expect(answers[0]).toContain('Memory FIRST already has this content');
    expect(answers[0]).toContain('409');
  });

  it('names the duplicate when bob may read it: team-visible or shared with him (REST 409 and MCP)', async () => {
    for (const reach of ['team', 'shared'] as const) {
      const visibleText = text(`A ${reach} memory of alice's`);
      const other = await store(visibleText, reach === 'team' ? 'team' : 'private');
      if (reach === 'shared') await share(other, 'read');
      const target = await editable();
      const rest = await bob().put(`/api/memories/${target}`, { content: visibleText });
      expect(rest).toMatchObject({
        status: 409,
        body: { code: 'duplicate_content', detail: `Memory ${other} already has this content` },
      });
      const tool = await callTool(mcp, 'memory_update', { id: target, content: visibleText });
      expect(tool.isError).toBe(true);
      expect(tool.text).toContain(`Memory ${other} already has this content [duplicate_content]`);
    }
    expect(errorLines()).toEqual([]);
  });
});
