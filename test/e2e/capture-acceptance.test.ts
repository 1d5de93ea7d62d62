import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookFixture } from '../support/hook-fixture';
import { hookSessionId, runHookScript } from '../support/hook-runner';
import { startWorkerProcess, type WorkerProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

interface ListedMemory {
  content: string;
  category: string;
  project: string | null;
  branch?: string;
}

/**
 * The capture loop as an agent meets it: the real hook scripts, run as Claude Code runs them (hook
 * input on stdin), record one session in a repository; when it stops, the worker turns the decision
 * made in it into a memory; the next session in the same repository starts with it in its context.
 */
describe('a Claude Code session’s decision reaches the next session’s startup context', () => {
  const world = hookFixture();
  let worker: WorkerProcess;
  beforeAll(async () => {
    worker = await startWorkerProcess(world.team.env);
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('hooks capture the session, the decision becomes a memory, the next session starts with it', async () => {
    const spool = world.newSpool();
    const env = world.env(world.url(), spool);
    const hook = (script: string, claude: string, event: string, fields: Record<string, unknown> = {}) =>
      runHookScript(script, world.input(claude, event, fields), env);

    const first = randomUUID();
    const decision = `We decided to use pnpm workspaces instead of npm for ${world.repo}.`;
    expect(await hook('session-start.mjs', first, 'SessionStart', { source: 'startup' })).toMatchObject({
      code: 0,
    });
    for (const [script, event, fields] of [
      ['user-prompt-submit.mjs', 'UserPromptSubmit', { prompt: 'Why does the install take so long?' }],
      [
        'post-tool-use.mjs',
        'PostToolUse',
        { tool_name: 'Bash', tool_input: { command: 'npm install' }, tool_response: { stdout: 'added 912' } },
      ],
      ['user-prompt-submit.mjs', 'UserPromptSubmit', { prompt: decision }],
      ['session-end.mjs', 'Stop', { stop_hook_active: false }],
    ] as const) {
      const run = await hook(script, first, event, fields);
      expect(run, `${script} for ${event}`).toMatchObject({ code: 0, stdout: '' });
    }

    const sessionId = hookSessionId('claude-code', first);
    const detail = await world.detail(sessionId);
    expect(detail.body).toMatchObject({
      agent: 'claude-code',
      project: `github.com/acme/${world.repo}`,
      status: 'ended',
      event_counts: { prompt: 2, tool_call: 1 },
    });

    const tag = encodeURIComponent(`session:${sessionId}`);
    const captured = await waitFor('the worker to capture the decision', async () => {
      const res = await world.alice().get<{ memories: ListedMemory[] }>(`/api/memories?tag=${tag}`);
      return res.body.memories?.length ? res.body.memories : undefined;
    });
    expect(captured).toEqual([
      expect.objectContaining({
        category: 'decisions',
        project: `github.com/acme/${world.repo}`,
        // Captured on feature-x: that branch's until it is merged (the next session there lists it).
        branch: 'feature-x',
        content: expect.stringContaining('pnpm workspaces instead of npm'),
      }),
    ]);

    const next = await hook('session-start.mjs', randomUUID(), 'SessionStart', { source: 'startup' });
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('pnpm workspaces instead of npm');
  });
});
