import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hookFixture } from '../support/hook-fixture';
import { hookSessionId, runHookCommand, spooled } from '../support/hook-runner';
import { ROOT } from '../support/processes';

interface HookGroup {
  command?: string;
  hooks?: Array<{ command: string }>;
}

/** The one command a client's hooks.json runs for an event. */
function commandFor(file: string, event: string): string {
  const hooks = JSON.parse(readFileSync(resolve(ROOT, file), 'utf8')).hooks as Record<string, HookGroup[]>;
  const group = hooks[event]?.[0];
  const command = group?.hooks ? group.hooks[0].command : group?.command;
  if (!command) throw new Error(`${file} runs nothing on ${event}`);
  return command;
}

/** The hook scripts behind Cursor's and Codex's configuration in clients/, against the live service. */
describe('Cursor and Codex hooks (the commands of clients/*/hooks.json)', () => {
  const world = hookFixture();
  let spoolDir: string;
  const memory = () => `The ${world.repo} release checklist lives in docs/release.md`;

  beforeAll(async () => {
    spoolDir = world.newSpool();
    const stored = await world.alice().post('/api/memories', {
      content: memory(),
      category: 'runbook',
      // The startup block lists important memories (0.8 and up), decisions and session summaries.
      importance: 0.9,
      project: `github.com/acme/${world.repo}`,
    });
    expect(stored.status).toBe(200);
  });

  it('Cursor: a conversation becomes a session, with context from sessionStart and Cursor-shaped answers', async () => {
    const conversation = randomUUID();
    const common = {
      conversation_id: conversation,
      generation_id: randomUUID(),
      model: 'composer',
      cursor_version: '1.7.0',
      workspace_roots: [world.workdir],
      user_email: 'alice@example.com',
    };
    const cursor = (event: string, fields: Record<string, unknown>) =>
      runHookCommand(
        commandFor('clients/cursor/hooks.json', event),
        { ...common, hook_event_name: event, ...fields },
        world.env(world.url(), spoolDir),
      );

    const start = await cursor('sessionStart', { session_id: conversation, is_background_agent: false });
    expect(start.code).toBe(0);
    expect(JSON.parse(start.stdout).additional_context).toContain(memory());
    const prompt = await cursor('beforeSubmitPrompt', { prompt: 'cut the release', attachments: [] });
    expect(JSON.parse(prompt.stdout)).toEqual({ continue: true });
    const shell = await cursor('afterShellExecution', {
      command: 'npm version minor',
      output: 'v1.3.0',
      duration: 812,
    });
    const edit = await cursor('afterFileEdit', {
      file_path: `${world.workdir}/CHANGELOG.md`,
      edits: [{ old_string: '', new_string: 'release notes body' }],
    });
    const mcp = await cursor('afterMCPExecution', {
      tool_name: 'memory_recall',
      tool_input: '{"context":"release"}',
      result_json: '{}',
    });
    const stop = await cursor('stop', { status: 'completed', loop_count: 0 });
    for (const run of [shell, edit, mcp, stop]) expect(run).toMatchObject({ code: 0, stdout: '{}' });

    const sessionId = hookSessionId('cursor', conversation);
    expect((await world.detail(sessionId)).body).toMatchObject({
      agent: 'cursor',
      cwd: world.workdir,
      git_branch: 'feature-x',
      status: 'ended',
      event_counts: { prompt: 1, tool_call: 3 },
    });
    const { events } = await world.timeline(sessionId);
    expect(events.filter((e) => e.kind === 'tool_call').map((e) => e.payload)).toEqual([
      { tool: 'Shell', input: { command: 'npm version minor' } },
      { tool: 'Edit', input: { file_path: `${world.workdir}/CHANGELOG.md` } },
      { tool: 'mcp:memory_recall', input: '{"context":"release"}' },
    ]);
    expect(spooled(spoolDir)).toEqual([]);
  });

  it('Codex: hooks with Claude-shaped input record a codex session; context is plain text', async () => {
    const thread = randomUUID();
    const codex = (event: string, fields: Record<string, unknown>) =>
      runHookCommand(
        commandFor('clients/codex/hooks.json', event),
        { session_id: thread, cwd: world.workdir, hook_event_name: event, model: 'gpt-5', ...fields },
        world.env(world.url(), spoolDir),
      );
    const start = await codex('SessionStart', { source: 'startup', transcript_path: null });
    expect(start.stdout).toContain(memory());
    const prompt = await codex('UserPromptSubmit', { prompt: 'bump the version', turn_id: 't1' });
    const tool = await codex('PostToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'cargo test' },
      tool_response: 'ok',
      turn_id: 't1',
    });
    const stop = await codex('Stop', {
      stop_hook_active: false,
      last_assistant_message: 'done',
      turn_id: 't1',
    });
    for (const run of [prompt, tool, stop]) expect(run).toMatchObject({ code: 0, stdout: '' });
    expect((await world.detail(hookSessionId('codex', thread))).body).toMatchObject({
      agent: 'codex',
      status: 'ended',
      event_counts: { prompt: 1, tool_call: 1 },
    });
  });

  it('Codex notify: the JSON argument records the turn’s prompts into the same session as the hooks', async () => {
    const thread = randomUUID();
    const notify = /notify = \[([^\]]+)\]/.exec(
      readFileSync(resolve(ROOT, 'docs/mcp-clients.md'), 'utf8'),
    )?.[1];
    const command = [...(notify ?? '').matchAll(/"([^"]+)"/g)].map(([, word]) => word).join(' ');
    const payload = {
      type: 'agent-turn-complete',
      'thread-id': thread,
      'turn-id': '1',
      cwd: world.workdir,
      'input-messages': ['rename the parser module'],
      'last-assistant-message': 'Renamed.',
    };
    const run = await runHookCommand(command, undefined, world.env(world.url(), spoolDir), [
      JSON.stringify(payload),
    ]);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    const sessionId = hookSessionId('codex', thread);
    expect((await world.detail(sessionId)).body).toMatchObject({
      agent: 'codex',
      event_counts: { prompt: 1 },
    });
    expect((await world.timeline(sessionId)).events[0].payload).toEqual({ text: 'rename the parser module' });
  });
});
