import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookFixture } from '../support/hook-fixture';
import {
  failingServer,
  hookSessionId,
  losingProxy,
  runHookScript,
  spooled,
  type FaultServer,
  type LosingProxy,
} from '../support/hook-runner';
import { freePort } from '../support/processes';

/** The spool: what hooks captured while the service was away arrives later, exactly once. */
describe('Claude Code hooks: the spool', () => {
  const world = hookFixture();

  describe('after an outage, a 500 and a send whose answer was lost', () => {
    const claudeSession = randomUUID();
    const sessionId = hookSessionId('claude-code', claudeSession);
    let spoolDir: string;
    let failing: FaultServer;
    let proxy: LosingProxy;
    const run = (script: string, url: string, fields: Record<string, unknown>, timeoutMs = '15000') =>
      runHookScript(
        script,
        world.input(claudeSession, 'Any', fields),
        world.env(url, spoolDir, { MEMORY_HOOK_TIMEOUT_MS: timeoutMs }),
      );
    const tool = (command: string) => ({ tool_name: 'Bash', tool_input: { command } });

    beforeAll(async () => {
      spoolDir = world.newSpool();
      failing = await failingServer();
      // Passes everything through, but the answer to the first events batch never comes back.
      let lost = false;
      proxy = await losingProxy(world.url(), (req) => {
        if (lost || req.method !== 'POST' || !req.url?.endsWith('/events')) return false;
        lost = true;
        return true;
      });
    });
    afterAll(async () => {
      await failing?.close();
      await proxy?.close();
    });

    it('spools the start and the events while the service is down or failing', async () => {
      const closed = `http://127.0.0.1:${await freePort()}`;
      expect((await run('session-start.mjs', closed, { source: 'startup' }, '300')).code).toBe(0);
      expect(
        (await run('user-prompt-submit.mjs', closed, { prompt: 'fix the flaky test' }, '300')).code,
      ).toBe(0);
      expect((await run('post-tool-use.mjs', failing.url, tool('npm test'), '300')).code).toBe(0);
      expect(failing.hits).toBeGreaterThan(0);
      expect(spooled(spoolDir).map((r) => r.type)).toEqual(['start', 'events', 'events']);
      expect((await world.detail(sessionId)).status).toBe(404);
    });

    it('keeps the batch whose answer was lost although the service stored it', async () => {
      const result = await run('post-tool-use.mjs', proxy.url, tool('npm run lint'), '1000');
      expect(result).toMatchObject({ code: 0, stdout: '' });
      expect(result.ms).toBeLessThan(4000);
      // The service started the session and stored all three events; the hook never heard so.
      expect(proxy.withheld).toEqual([
        { status: 202, body: { accepted: 3, duplicates: 0, session_id: sessionId } },
      ]);
      expect((await world.detail(sessionId)).body.events_total).toBe(3);
      expect(spooled(spoolDir).map((r) => r.type)).toEqual(['events', 'events', 'events']);
    });

    it('delivers the spool once the service is back: every event exactly once, in order', async () => {
      const result = await run('post-tool-use.mjs', world.url(), tool('git status'));
      expect(result).toMatchObject({ code: 0, stdout: '' });
      expect(spooled(spoolDir)).toEqual([]);
      const session = (await world.detail(sessionId)).body;
      expect(session).toMatchObject({ cwd: world.workdir, git_branch: 'feature-x', events_total: 4 });
      expect(session.event_counts).toMatchObject({ prompt: 1, tool_call: 3 });
      const { events } = await world.timeline(sessionId);
      expect(events.map((e) => e.payload.text ?? (e.payload.input as { command: string }).command)).toEqual([
        'fix the flaky test',
        'npm test',
        'npm run lint',
        'git status',
      ]);
      // Another run finds nothing left to send and changes nothing.
      await run('pre-compact.mjs', world.url(), {});
      expect((await world.detail(sessionId)).body.events_total).toBe(4);
    });
  });

  it('concurrent hooks share the spool: each record is sent by one of them, once', async () => {
    const claudeSession = randomUUID();
    const sessionId = hookSessionId('claude-code', claudeSession);
    const spoolDir = world.newSpool();
    const closed = `http://127.0.0.1:${await freePort()}`;
    const env = (url: string) => world.env(url, spoolDir);
    const tool = (i: number) =>
      world.input(claudeSession, 'PostToolUse', {
        tool_name: 'Read',
        tool_input: { file_path: `/src/f${i}.ts` },
      });
    for (let i = 0; i < 8; i += 1) await runHookScript('post-tool-use.mjs', tool(i), env(closed));
    expect(spooled(spoolDir)).toHaveLength(8);

    const proxy = await losingProxy(world.url(), () => false);
    try {
      const runs = await Promise.all(
        [8, 9, 10, 11].map((i) => runHookScript('post-tool-use.mjs', tool(i), env(proxy.url))),
      );
      for (const run of runs) expect(run).toMatchObject({ code: 0, stdout: '' });
      // A hook whose send was refused for a moment (a busy database, say) leaves its records to the
      // next hook, as it must; on a busy machine one more hook then finds them. Either way each
      // record reaches the service once.
      if (spooled(spoolDir).length > 0)
        await runHookScript('pre-compact.mjs', world.input(claudeSession, 'PreCompact', {}), env(proxy.url));
      // (The first batch finds no session, 404, and is sent again after the start.)
      const batches = proxy.forwarded.filter((f) => f.path.endsWith('/events') && f.status === 202);
      const sent = batches.map((f) => f.body as { accepted: number; duplicates: number });
      expect(sent.reduce((sum, b) => sum + b.accepted, 0)).toBe(12);
      expect(sent.reduce((sum, b) => sum + b.duplicates, 0)).toBe(0);
    } finally {
      await proxy.close();
    }
    expect(spooled(spoolDir)).toEqual([]);
    expect((await world.detail(sessionId)).body.events_total).toBe(12);
  });

  it('starts a session it never saw start (events first: 404, start, resend)', async () => {
    const claudeSession = randomUUID();
    const spoolDir = world.newSpool();
    const result = await runHookScript(
      'user-prompt-submit.mjs',
      world.input(claudeSession, 'UserPromptSubmit', { prompt: 'resume the migration' }),
      world.env(world.url(), spoolDir),
    );
    expect(result).toMatchObject({ code: 0, stdout: '' });
    const session = await world.detail(hookSessionId('claude-code', claudeSession));
    expect(session.body).toMatchObject({ agent: 'claude-code', cwd: world.workdir, events_total: 1 });
    expect(spooled(spoolDir)).toEqual([]);
  });

  it("cannot write into another user's session: the refused records are dropped, not retried", async () => {
    const claudeSession = randomUUID();
    const sessionId = hookSessionId('claude-code', claudeSession);
    const spoolDir = world.newSpool();
    const input = world.input(claudeSession, 'UserPromptSubmit', { prompt: 'alice private note' });
    await runHookScript('user-prompt-submit.mjs', input, world.env(world.url(), spoolDir));
    // Bob's hooks derive the same id from the same Claude session: the service refuses it (409).
    const bobSpool = world.newSpool();
    const asBob = { ...world.env(world.url(), bobSpool), MEMORY_API_KEY: world.team.keys.bob };
    const bob = await runHookScript('user-prompt-submit.mjs', { ...input, prompt: 'bob writes here' }, asBob);
    expect(bob).toMatchObject({ code: 0, stdout: '' });
    expect(spooled(bobSpool)).toEqual([]);
    const { events } = await world.timeline(sessionId);
    expect(events.map((e) => e.payload.text)).toEqual(['alice private note']);
  });

  it('REST: a resent batch answers duplicates and stores nothing twice; another user gets 404', async () => {
    const id = randomUUID();
    expect((await world.alice().post('/api/sessions', { id, agent: 'ci' })).status).toBe(200);
    const batch = {
      events: [
        { id: 'evt-1', kind: 'note', payload: { text: 'one' } },
        { id: 'evt-2', kind: 'note', payload: { text: 'two' } },
      ],
    };
    const first = await world.alice().post(`/api/sessions/${id}/events`, batch);
    const again = await world.alice().post(`/api/sessions/${id}/events`, batch);
    expect(first).toMatchObject({ status: 202, body: { accepted: 2, duplicates: 0, session_id: id } });
    expect(again).toMatchObject({ status: 202, body: { accepted: 0, duplicates: 2, session_id: id } });
    expect((await world.detail(id)).body.events_total).toBe(2);
    expect(await world.bob().post(`/api/sessions/${id}/events`, batch)).toMatchObject({
      status: 404,
      body: { code: 'session_not_found' },
    });
    const tooLong = { events: [{ id: 'x'.repeat(101), kind: 'note', payload: {} }] };
    expect(await world.alice().post(`/api/sessions/${id}/events`, tooLong)).toMatchObject({ status: 422 });
  });
});
