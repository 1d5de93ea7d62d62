import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookFixture } from '../support/hook-fixture';
import { hookSessionId, runHookScript, spooled } from '../support/hook-runner';

interface Sent {
  method: string;
  path: string;
  /** The request body exactly as the hook sent it. */
  body: string;
  status: number;
  /** The answer's body. */
  answer: string;
}

interface RecordingProxy {
  readonly url: string;
  readonly sent: Sent[];
  close(): Promise<void>;
}

/** An answer the proxy gives itself instead of passing the request on. */
type Stub = (req: IncomingMessage, body: string) => { status: number; body: unknown } | undefined;

/**
 * Passes every request on to `upstream` and keeps what the hooks sent, byte for byte. `stub` may
 * answer a request itself instead (a key without a scope, an older service).
 */
async function recordingProxy(upstream: string, stub: Stub = () => undefined): Promise<RecordingProxy> {
  const sent: Sent[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const entry: Sent = {
        method: req.method ?? '',
        path: req.url ?? '',
        body: body.toString('utf8'),
        status: 0,
        answer: '',
      };
      sent.push(entry);
      const stubbed = stub(req, entry.body);
      if (stubbed !== undefined) {
        entry.status = stubbed.status;
        entry.answer = JSON.stringify(stubbed.body);
        res.writeHead(stubbed.status, { 'content-type': 'application/json' }).end(entry.answer);
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([name]) => !['host', 'connection', 'content-length'].includes(name),
        ),
      ) as Record<string, string>;
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers,
        body: body.length > 0 ? body : undefined,
      });
      entry.status = answer.status;
      entry.answer = await answer.text();
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(entry.answer);
    })().catch(() => res.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      server.close();
      await once(server, 'close');
    },
  };
}

/** `git -C <dir> …` with a committer identity; its output trimmed. */
function gitIn(dir: string, ...args: string[]): string {
  const identity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];
  return execFileSync('git', ['-C', dir, ...identity, ...args], { encoding: 'utf8' }).trim();
}

interface CodeEventBody {
  repo: string;
  branch?: string;
  before?: string;
  after?: string;
  changes: Array<{ path: string; status: string; hash?: string; from?: string }>;
}

/** The lines of a source file, each with `marker`: long enough that a small edit keeps it a rename. */
const source = (marker: string, lines: number) =>
  Array.from({ length: lines }, (_, i) => `export const rate${i} = ${i}; // ${marker}\n`).join('');

/**
 * The hooks tie what a session does to code without sending code: the session starts at a commit,
 * tool calls name files as repository paths with git blob ids, Stop reports the files changed since
 * the start as a code event, recall on a prompt sends the uncommitted changes. Every request the
 * hooks send passes a recording proxy; the files' contents carry a marker that must never appear.
 */
describe('Claude Code hooks anchor sessions to code: paths and blob ids, never contents', () => {
  const world = hookFixture();
  const marker = `pay-body-${randomUUID()}`;
  const claudeSession = randomUUID();
  const sessionId = hookSessionId('claude-code', claudeSession);
  let proxy: RecordingProxy;
  let spoolDir: string;
  let startCommit: string;

  const git = (...args: string[]) => gitIn(world.workdir, ...args);
  const blobId = (path: string) => git('hash-object', '--', path);
  const file = (path: string) => join(world.workdir, path);
  const run = (script: string, event: string, fields: Record<string, unknown> = {}, extra = {}) =>
    runHookScript(script, world.input(claudeSession, event, fields), world.env(proxy.url, spoolDir, extra));
  const sentTo = (method: string, path: string) =>
    proxy.sent.filter((s) => s.method === method && s.path.split('?')[0] === path);
  const codeEvents = () => sentTo('POST', '/api/code-events').map((s) => JSON.parse(s.body) as CodeEventBody);
  const stop = async () => {
    const before = codeEvents().length;
    const result = await run('session-end.mjs', 'Stop', { stop_hook_active: false });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(spooled(spoolDir)).toEqual([]);
    return codeEvents().slice(before);
  };

  beforeAll(async () => {
    mkdirSync(file('src'), { recursive: true });
    writeFileSync(file('src/pay.ts'), source(marker, 30));
    writeFileSync(file('README.md'), `# ${world.repo}\n`);
    git('add', '.');
    git('commit', '-q', '-m', 'payments');
    startCommit = git('rev-parse', 'HEAD');
    spoolDir = world.newSpool();
    proxy = await recordingProxy(world.url());
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('SessionStart starts the session at the commit the working tree is at', async () => {
    expect(await run('session-start.mjs', 'SessionStart', { source: 'startup' })).toMatchObject({ code: 0 });
    const [start] = sentTo('POST', '/api/sessions');
    expect(JSON.parse(start.body)).toMatchObject({
      id: sessionId,
      git_remote: `git@github.com:acme/${world.repo}.git`,
      git_branch: 'feature-x',
      git_commit: startCommit,
    });
    expect(start.status).toBe(200);
    expect((await world.detail(sessionId)).body).toMatchObject({ git_commit: startCommit });
  });

  it('PostToolUse names the file an Edit changed by its repository path and blob id', async () => {
    appendFileSync(file('src/pay.ts'), `export const fee = 0.029; // ${marker}\n`);
    const edit = await run('post-tool-use.mjs', 'PostToolUse', {
      tool_name: 'Edit',
      tool_input: { file_path: file('src/pay.ts'), old_string: marker, new_string: `${marker} fee` },
      tool_response: { filePath: file('src/pay.ts'), originalFile: source(marker, 30), success: true },
      tool_use_id: 'toolu_edit',
    });
    expect(edit).toMatchObject({ code: 0, stdout: '' });
    const hash = blobId('src/pay.ts');
    const [batch] = sentTo('POST', `/api/sessions/${sessionId}/events`).slice(-1);
    expect(JSON.parse(batch.body).events[0].payload).toEqual({
      tool: 'Edit',
      input: { file_path: file('src/pay.ts') },
      file: { path: 'src/pay.ts', hash },
    });
    expect(batch.status).toBe(202);
    const { events } = await world.timeline(sessionId);
    expect(events.find((e) => e.kind === 'tool_call')?.payload.file).toEqual({ path: 'src/pay.ts', hash });
  });

  it('a file that does not exist is named without a hash; a file outside the work tree not at all', async () => {
    const outside = join(world.scratch, 'outside.txt');
    writeFileSync(outside, marker);
    for (const path of ['src/missing.ts', outside, 'src']) {
      const read = await run('post-tool-use.mjs', 'PostToolUse', {
        tool_name: 'Read',
        tool_input: { file_path: path },
        tool_response: { file: { content: marker } },
      });
      expect(read.code).toBe(0);
    }
    const payloads = sentTo('POST', `/api/sessions/${sessionId}/events`)
      .slice(-3)
      .map((s) => JSON.parse(s.body).events[0].payload);
    expect(payloads.map((p) => p.file)).toEqual([{ path: 'src/missing.ts' }, undefined, undefined]);
  });

  it('Stop after a commit that changed the file reports it with its new blob id, once', async () => {
    git('commit', '-q', '-am', 'fee');
    const after = git('rev-parse', 'HEAD');
    const [event, ...more] = await stop();
    expect(more).toEqual([]);
    expect(event).toEqual({
      repo: `git@github.com:acme/${world.repo}.git`,
      branch: 'feature-x',
      before: startCommit,
      after,
      changes: [{ path: 'src/pay.ts', status: 'modified', hash: blobId('src/pay.ts') }],
    });
    const accepted = sentTo('POST', '/api/code-events').at(-1);
    // The same changes again: nothing new to report.
    expect(await stop()).toEqual([]);
    expect(accepted?.status).toBe(202);
  });

  it('a rename is reported as renamed with the old path, from where the last report ended', async () => {
    const reported = git('rev-parse', 'HEAD');
    git('mv', 'src/pay.ts', 'src/payments.ts');
    git('commit', '-q', '-m', 'rename');
    const [event] = await stop();
    expect(event).toMatchObject({ before: reported, after: git('rev-parse', 'HEAD') });
    expect(event.changes).toEqual([
      { path: 'src/payments.ts', status: 'renamed', from: 'src/pay.ts', hash: blobId('src/payments.ts') },
    ]);
  });

  it('recall on a prompt sends the uncommitted changes: blob ids, null for a deleted file', async () => {
    git('rm', '-q', 'src/payments.ts');
    mkdirSync(file('notes'), { recursive: true });
    writeFileSync(file('notes/todo.md'), `refunds next // ${marker}\n`);
    const write = await run('post-tool-use.mjs', 'PostToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: file('notes/todo.md'), content: `refunds next // ${marker}\n` },
    });
    expect(write.code).toBe(0);
    const prompt = await run(
      'user-prompt-submit.mjs',
      'UserPromptSubmit',
      { prompt: 'where do the payment rates live?' },
      { MEMORY_RECALL_ON_PROMPT: '1' },
    );
    expect(prompt.code).toBe(0);
    const calls = sentTo('POST', '/mcp');
    const call = JSON.parse(calls[0].body) as { params: { name: string; arguments: { tree: unknown } } };
    expect(call.params.name).toBe('memory_recall');
    expect(call.params.arguments.tree).toEqual({
      repo: `git@github.com:acme/${world.repo}.git`,
      branch: 'feature-x',
      commit: git('rev-parse', 'HEAD'),
      paths: [
        { path: 'notes/todo.md', hash: blobId('notes/todo.md') },
        { path: 'src/payments.ts', hash: null },
      ],
    });
    // The service took the tree's facts: one call, answered without an error.
    expect(calls).toHaveLength(1);
    expect(calls[0].status).toBe(200);
    expect(JSON.parse(calls[0].answer).result?.isError).toBeFalsy();
  });

  it('a deletion is reported as deleted without a hash (under the path the rename gave it), a new file as added', async () => {
    const [event] = await stop();
    expect(event.changes).toEqual([
      { path: 'notes/todo.md', status: 'added', hash: blobId('notes/todo.md') },
      { path: 'src/payments.ts', status: 'deleted' },
    ]);
  });

  it('no file content left the machine: the marker is in the files, never in a request', () => {
    expect(git('show', `${startCommit}:src/pay.ts`)).toContain(marker);
    expect(readFileSync(file('notes/todo.md'), 'utf8')).toContain(marker);
    const paths = new Set(proxy.sent.map((s) => s.path.split('?')[0]));
    for (const path of ['/api/sessions', '/api/code-events', '/mcp', `/api/sessions/${sessionId}/events`]) {
      expect(paths).toContain(path);
    }
    for (const request of proxy.sent) {
      expect(`${request.method} ${request.path} ${request.body}`).not.toContain(marker);
    }
  });
});

describe('Claude Code hooks: a service that refuses code events or tree facts', () => {
  const world = hookFixture();

  beforeAll(() => {
    writeFileSync(join(world.workdir, 'app.ts'), 'export const app = 1;\n');
    gitIn(world.workdir, 'add', '.');
    gitIn(world.workdir, 'commit', '-q', '-m', 'app');
  });

  it.each([
    [403, 'a key without code-events:write'],
    [404, 'a service without the route'],
  ])('drops the code event on %i (%s) and delivers the rest', async (status) => {
    const claudeSession = randomUUID();
    const spoolDir = world.newSpool();
    const proxy = await recordingProxy(world.url(), (req) =>
      req.url === '/api/code-events' ? { status, body: { detail: 'refused', code: 'refused' } } : undefined,
    );
    const run = (event: string, script: string) =>
      runHookScript(script, world.input(claudeSession, event, {}), world.env(proxy.url, spoolDir));
    try {
      expect((await run('SessionStart', 'session-start.mjs')).code).toBe(0);
      writeFileSync(join(world.workdir, 'app.ts'), `export const app = ${status};\n`);
      expect(await run('Stop', 'session-end.mjs')).toMatchObject({ code: 0, stdout: '' });
      expect(proxy.sent.filter((s) => s.path === '/api/code-events')).toHaveLength(1);
      expect(spooled(spoolDir)).toEqual([]);
      expect((await world.detail(hookSessionId('claude-code', claudeSession))).body.status).toBe('ended');
      expect(readFileSync(join(spoolDir, 'hooks.log'), 'utf8')).toContain(`HTTP ${status}`);
    } finally {
      await proxy.close();
      rmSync(spoolDir, { recursive: true, force: true });
    }
  });

  it('recalls without the tree facts when the service refuses that argument', async () => {
    const stored = await world.alice().post('/api/memories', {
      content: `The ${world.repo} app entry point is app.ts, bundled with esbuild`,
      category: 'fact',
      importance: 0.9,
      project: `github.com/acme/${world.repo}`,
    });
    expect(stored.status).toBe(200);
    // What a service that predates tree facts answers (its MCP tool refuses unknown arguments).
    const refusal = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: 'MCP error -32602: Invalid arguments: Unrecognized key: "tree"' }],
        isError: true,
      },
    };
    const proxy = await recordingProxy(world.url(), (req, body) =>
      req.url === '/mcp' && body.includes('"tree"') ? { status: 200, body: refusal } : undefined,
    );
    const spoolDir = world.newSpool();
    try {
      writeFileSync(join(world.workdir, 'app.ts'), 'export const app = 2;\n');
      const prompt = await runHookScript(
        'user-prompt-submit.mjs',
        world.input(randomUUID(), 'UserPromptSubmit', { prompt: `what bundles the ${world.repo} app?` }),
        world.env(proxy.url, spoolDir, { MEMORY_RECALL_ON_PROMPT: '1' }),
      );
      expect(prompt.code).toBe(0);
      expect(prompt.stdout).toContain(`The ${world.repo} app entry point is app.ts`);
      const calls = proxy.sent
        .filter((s) => s.path === '/mcp')
        .map((s) => JSON.parse(s.body) as { params: { arguments: Record<string, unknown> } });
      expect(calls.map((c) => 'tree' in c.params.arguments)).toEqual([true, false]);
    } finally {
      await proxy.close();
      rmSync(spoolDir, { recursive: true, force: true });
    }
  });

  it('sends a remote without the credentials in its URL', async () => {
    const other = join(world.scratch, 'with-token');
    const token = `tok${randomUUID().replaceAll('-', '')}`;
    execFileSync('git', ['init', '-q', other]);
    gitIn(other, 'remote', 'add', 'origin', `https://alice:${token}@git.example.com/acme/${world.repo}.git`);
    writeFileSync(join(other, 'a.ts'), 'export const a = 1;\n');
    gitIn(other, 'add', '.');
    gitIn(other, 'commit', '-q', '-m', 'a');
    const proxy = await recordingProxy(world.url());
    const spoolDir = world.newSpool();
    try {
      const claudeSession = randomUUID();
      const input = (event: string) => ({ ...world.input(claudeSession, event), cwd: other });
      expect(
        (await runHookScript('session-start.mjs', input('SessionStart'), world.env(proxy.url, spoolDir)))
          .code,
      ).toBe(0);
      writeFileSync(join(other, 'a.ts'), 'export const a = 2;\n');
      expect(
        (await runHookScript('session-end.mjs', input('Stop'), world.env(proxy.url, spoolDir))).code,
      ).toBe(0);
      const start = proxy.sent.find((s) => s.path === '/api/sessions');
      expect(JSON.parse(start?.body ?? '{}').git_remote).toBe(
        `https://git.example.com/acme/${world.repo}.git`,
      );
      const code = proxy.sent.find((s) => s.path === '/api/code-events');
      expect(JSON.parse(code?.body ?? '{}').repo).toBe(`https://git.example.com/acme/${world.repo}.git`);
      for (const request of proxy.sent) expect(request.body).not.toContain(token);
    } finally {
      await proxy.close();
      rmSync(spoolDir, { recursive: true, force: true });
    }
  });

  it('a git that hangs costs the hooks no more than their time limit, and loses no record', async () => {
    const bin = join(world.scratch, 'hanging-git');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'git'), '#!/bin/sh\nexec sleep 10\n', { mode: 0o755 });
    const proxy = await recordingProxy(world.url());
    const spoolDir = world.newSpool();
    const claudeSession = randomUUID();
    const env = world.env(proxy.url, spoolDir, {
      MEMORY_HOOK_TIMEOUT_MS: '1000',
      MEMORY_RECALL_ON_PROMPT: '1',
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    const run = (script: string, event: string, fields: Record<string, unknown>) =>
      runHookScript(script, world.input(claudeSession, event, fields), env);
    try {
      const runs = [
        await run('session-start.mjs', 'SessionStart', { source: 'startup' }),
        await run('post-tool-use.mjs', 'PostToolUse', {
          tool_name: 'Edit',
          tool_input: { file_path: join(world.workdir, 'app.ts') },
        }),
        await run('user-prompt-submit.mjs', 'UserPromptSubmit', { prompt: 'what does app.ts export?' }),
        await run('session-end.mjs', 'Stop', {}),
      ];
      for (const result of runs) {
        expect(result.code).toBe(0);
        expect(result.ms).toBeLessThan(3000);
      }
      expect(spooled(spoolDir)).toEqual([]);
      const sessionId = hookSessionId('claude-code', claudeSession);
      const events = proxy.sent.filter((s) => s.path === `/api/sessions/${sessionId}/events`);
      expect(events.map((s) => JSON.parse(s.body).events[0].payload)).toEqual([
        { tool: 'Edit', input: { file_path: join(world.workdir, 'app.ts') } },
        { text: 'what does app.ts export?' },
      ]);
      expect(proxy.sent.filter((s) => s.path === '/api/code-events')).toEqual([]);
    } finally {
      await proxy.close();
      rmSync(spoolDir, { recursive: true, force: true });
    }
  });
});
