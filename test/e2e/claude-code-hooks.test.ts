import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeGithubToken } from '../support/fake-secrets';
import { hookFixture } from '../support/hook-fixture';
import {
  failingServer,
  hangingServer,
  hookSessionId,
  losingProxy,
  runHookScript,
  spooled,
  type FaultServer,
} from '../support/hook-runner';
import { freePort } from '../support/processes';

/** A hook given FAULT_TIMEOUT_MS must be gone within FAULT_BOUND_MS (Node's start-up on a busy machine included). */
const FAULT_TIMEOUT_MS = 400;
const FAULT_BOUND_MS = 3000;
const SCRIPTS = [
  'session-start.mjs',
  'user-prompt-submit.mjs',
  'post-tool-use.mjs',
  'pre-compact.mjs',
  'session-end.mjs',
];

async function closedPort(): Promise<FaultServer> {
  const port = await freePort();
  return { url: `http://127.0.0.1:${port}`, hits: 0, close: async () => undefined };
}

describe('Claude Code hooks (child processes with the input Claude Code passes)', () => {
  const world = hookFixture();

  describe('against the live service', () => {
    const claudeSession = randomUUID();
    const sessionId = hookSessionId('claude-code', claudeSession);
    let spoolDir: string;
    const run = (script: string, event: string, fields: Record<string, unknown>, extra = {}) =>
      runHookScript(
        script,
        world.input(claudeSession, event, fields),
        world.env(world.url(), spoolDir, extra),
      );

    beforeAll(async () => {
      spoolDir = world.newSpool();
      const stored = await world.alice().post('/api/memories', {
        content: `The ${world.repo} build uses pnpm workspaces, never npm install`,
        category: 'gotcha',
        // The startup block lists important memories (0.8 and up), decisions and session summaries.
        importance: 0.9,
        project: `github.com/acme/${world.repo}`,
      });
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    });

    it('SessionStart starts the session from the git facts and prints the startup context', async () => {
      const start = await run('session-start.mjs', 'SessionStart', { source: 'startup', model: 'claude' });
      expect(start.code).toBe(0);
      const session = await world.detail(sessionId);
      expect(session.body).toMatchObject({
        id: sessionId,
        agent: 'claude-code',
        project: `github.com/acme/${world.repo}`,
        cwd: world.workdir,
        git_branch: 'feature-x',
        status: 'active',
      });
      expect(start.stdout).toContain(`The ${world.repo} build uses pnpm workspaces`);
      expect(start.stdout).toContain(`Team memory session id: ${sessionId}`);
      expect(spooled(spoolDir)).toEqual([]);
    });

    it('takes the startup context from GET /api/context/startup where the service has it', async () => {
      const text = 'Startup context: the release checklist lives in docs/release.md';
      const stub = (req: IncomingMessage) =>
        req.url?.startsWith('/api/context/startup?') ? { project: null, text, sections: [] } : undefined;
      const proxy = await losingProxy(world.url(), () => false, stub);
      try {
        const start = await runHookScript(
          'session-start.mjs',
          world.input(claudeSession, 'SessionStart', { source: 'resume' }),
          world.env(proxy.url, spoolDir),
        );
        expect(start.stdout).toBe(
          `${text}\n\nTeam memory session id: ${sessionId} (for session_note and session_end).\n`,
        );
        const asked = new URL(
          proxy.forwarded.find((f) => f.path.startsWith('/api/context/'))?.path ?? '',
          'http://x',
        );
        expect(Object.fromEntries(asked.searchParams)).toEqual({
          project: `github.com/acme/${world.repo}`,
          // The session's branch: memories scoped to it are listed too.
          branch: 'feature-x',
          budget: '6000',
        });
      } finally {
        await proxy.close();
      }
    });

    it('UserPromptSubmit and PostToolUse record into that session, print nothing and store no secret', async () => {
      const secret = fakeGithubToken();
      const prompt = await run('user-prompt-submit.mjs', 'UserPromptSubmit', {
        prompt: `push with ${secret} please`,
      });
      const tool = await run('post-tool-use.mjs', 'PostToolUse', {
        tool_name: 'Edit',
        tool_input: { file_path: `${world.workdir}/a.ts`, old_string: 'x', new_string: 'FILE BODY' },
        tool_response: { filePath: `${world.workdir}/a.ts`, success: true },
        tool_use_id: 'toolu_1',
      });
      for (const result of [prompt, tool]) expect(result).toMatchObject({ code: 0, stdout: '' });
      expect((await world.detail(sessionId)).body.event_counts).toMatchObject({ prompt: 1, tool_call: 1 });
      const { events } = await world.timeline(sessionId);
      expect(JSON.stringify(events)).not.toContain(secret);
      expect(JSON.stringify(events)).not.toContain('FILE BODY');
      expect(events.find((e) => e.kind === 'prompt')?.payload.text).toMatch(
        /^push with \[REDACTED:[a-z_-]+\] please$/,
      );
      expect(events.find((e) => e.kind === 'tool_call')?.payload).toEqual({
        tool: 'Edit',
        input: { file_path: `${world.workdir}/a.ts` },
      });
    });

    it('with MEMORY_RECALL_ON_PROMPT=1 prints the top recall results for the prompt', async () => {
      const prompt = await run(
        'user-prompt-submit.mjs',
        'UserPromptSubmit',
        { prompt: `how do I install the ${world.repo} workspaces with pnpm?` },
        { MEMORY_RECALL_ON_PROMPT: '1' },
      );
      expect(prompt.code).toBe(0);
      expect(prompt.stdout).toContain('Team memories that may be relevant');
      expect(prompt.stdout).toContain(`The ${world.repo} build uses pnpm workspaces`);
    });

    // Made-up words alone; and a name no memory mentions and no dictionary knows, though "build"
    // occurs in a memory: the relevance floor answers nothing, so nothing is injected.
    it.each(['blorptastic snerdlewick quimfrazzle?', 'why does the sneemflix build fail?'])(
      'with MEMORY_RECALL_ON_PROMPT=1 injects nothing for a prompt nothing stored answers: %s',
      async (text) => {
        const prompt = await run(
          'user-prompt-submit.mjs',
          'UserPromptSubmit',
          { prompt: text },
          { MEMORY_RECALL_ON_PROMPT: '1' },
        );
        expect(prompt).toMatchObject({ code: 0, stdout: '' });
      },
    );

    it('PreCompact sends and prints nothing; Stop and SessionEnd end the session', async () => {
      const compact = await run('pre-compact.mjs', 'PreCompact', {
        trigger: 'auto',
        custom_instructions: '',
      });
      const stop = await run('session-end.mjs', 'Stop', { stop_hook_active: false });
      const end = await run('session-end.mjs', 'SessionEnd', { reason: 'prompt_input_exit' });
      for (const result of [compact, stop, end]) expect(result).toMatchObject({ code: 0, stdout: '' });
      expect((await world.detail(sessionId)).body).toMatchObject({
        status: 'ended',
        ended_at: expect.any(String),
      });
      expect(spooled(spoolDir)).toEqual([]);
    });
  });

  describe.each([
    ['a port that accepts connections and never answers', hangingServer],
    ['a closed port', closedPort],
    ['a server answering 500', failingServer],
  ])('against %s', (_name, makeServer) => {
    const claudeSession = randomUUID();
    let server: FaultServer;
    let spoolDir: string;
    const env = () =>
      world.env(server.url, spoolDir, {
        MEMORY_HOOK_TIMEOUT_MS: String(FAULT_TIMEOUT_MS),
        MEMORY_RECALL_ON_PROMPT: '1',
      });

    beforeAll(async () => {
      server = await makeServer();
      spoolDir = world.newSpool();
    });
    afterAll(async () => server?.close());

    it.each(SCRIPTS)('%s exits 0 within its timeout and prints nothing', async (script) => {
      const fields = {
        source: 'startup',
        prompt: 'deploy to staging',
        tool_name: 'Bash',
        tool_input: { command: 'make' },
      };
      const result = await runHookScript(script, world.input(claudeSession, 'Any', fields), env());
      expect(result).toMatchObject({ code: 0, stdout: '' });
      expect(result.ms).toBeLessThan(FAULT_BOUND_MS);
    });

    it('exits 0 within its timeout on input that is not JSON, printing nothing', async () => {
      const result = await runHookScript('user-prompt-submit.mjs', '{"session_id": "not closed', env());
      expect(result).toMatchObject({ code: 0, stdout: '' });
      expect(result.ms).toBeLessThan(FAULT_BOUND_MS);
    });

    it('kept everything it captured in the spool, in order, for a later run', () => {
      const session = hookSessionId('claude-code', claudeSession);
      expect(spooled(spoolDir).map((record) => [record.type, record.session])).toEqual([
        ['start', session],
        ['events', session],
        ['events', session],
        ['end', session],
      ]);
    });
  });

  it('uses a spool directory under the home cache by default', async () => {
    const env = world.env(world.url(), '', {});
    const result = await runHookScript(
      'post-tool-use.mjs',
      world.input(randomUUID(), 'PostToolUse', { tool_name: 'Read', tool_input: { file_path: '/x' } }),
      { ...env, MEMORY_API_URL: (await closedPort()).url },
    );
    expect(result.code).toBe(0);
    expect(spooled(join(world.scratch, '.cache', 'memory-hooks'))).toHaveLength(1);
  });
});
