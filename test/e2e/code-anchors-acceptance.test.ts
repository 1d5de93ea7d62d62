import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookFixture } from '../support/hook-fixture';
import { hookSessionId, runHookScript } from '../support/hook-runner';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { adminKeyInOtherTenant } from '../support/other-tenant';
import { startWorkerProcess, type WorkerProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

interface Anchor {
  path: string;
  commit: string | null;
  hash: string | null;
  state: string;
  label: string;
}
interface Listed {
  id: number;
  content: string;
  branch?: string;
  anchors?: Anchor[];
  code_state?: string;
}
interface Recalled extends Listed {
  rank: number;
  explain: { code_factor: number };
}

/**
 * Memories that know the code, as a team meets them: the real hook scripts in a real git
 * repository, the worker applying code events, recall and the startup context ranking and listing
 * a memory whose code changed, `memory_verify` over MCP, renames and deletions; and CI reporting a
 * push with a scoped key.
 */
describe('a memory about code stays honest as the code changes', () => {
  const world = hookFixture({ DEFAULT_VISIBILITY: 'team' });
  let worker: WorkerProcess;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', world.workdir, ...args], { encoding: 'utf8' }).trim();
  const write = (path: string, text: string) => {
    mkdirSync(join(world.workdir, path, '..'), { recursive: true });
    writeFileSync(join(world.workdir, path), text);
  };
  const commit = (message: string) => {
    git('add', '-A');
    git('-c', 'user.email=a@example.com', '-c', 'user.name=A', 'commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  const project = () => `github.com/acme/${world.repo}`;
  /** A source file long enough for git to see a rename of it as a rename after a one-line change. */
  const source = (retry: string) =>
    Array.from({ length: 30 }, (_, i) => `export const step${i} = () => ${i};\n`).join('') +
    `export function charge() { return ${retry}; }\n`;

  beforeAll(async () => {
    worker = await startWorkerProcess(world.team.env);
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('a captured memory is anchored, goes stale, is verified, moves with a rename and is orphaned by a delete', async () => {
    write('src/pay.ts', source('retry(3)'));
    const base = commit('pay');
    const spool = world.newSpool();
    const env = world.env(world.url(), spool);
    const session = randomUUID();
    const hook = (script: string, event: string, fields: Record<string, unknown> = {}) =>
      runHookScript(script, world.input(session, event, fields), env);

    expect((await hook('session-start.mjs', 'SessionStart', { source: 'startup' })).code).toBe(0);
    write('src/pay.ts', source('retry(3, { idempotencyKey })'));
    const edited = git('hash-object', 'src/pay.ts');
    for (const [script, event, fields] of [
      [
        'post-tool-use.mjs',
        'PostToolUse',
        {
          tool_name: 'Edit',
          tool_input: { file_path: join(world.workdir, 'src/pay.ts'), old_string: 'x', new_string: 'y' },
          tool_response: { success: true },
        },
      ],
      [
        'user-prompt-submit.mjs',
        'UserPromptSubmit',
        { prompt: 'Remember that the retry in src/pay.ts must stay idempotent.' },
      ],
      ['session-end.mjs', 'Stop', { stop_hook_active: false }],
    ] as const) {
      expect((await hook(script, event, fields)).code, `${script}`).toBe(0);
    }
    const tag = encodeURIComponent(`session:${hookSessionId('claude-code', session)}`);
    const [captured] = await waitFor('the worker to capture the note', async () => {
      const res = await world.alice().get<{ memories: Listed[] }>(`/api/memories?tag=${tag}`);
      return res.body.memories?.length ? res.body.memories : undefined;
    });
    expect(captured.content).toContain('src/pay.ts must stay idempotent');
    expect(captured.anchors).toEqual([
      expect.objectContaining({
        path: 'src/pay.ts',
        commit: base,
        hash: edited,
        state: 'current',
        label: `src/pay.ts@${base.slice(0, 12)}`,
      }),
    ]);
    // A fresh memory the same query finds as well as the captured one.
    const fresh = await world.alice().post<{ id: number }>('/api/memories', {
      content: 'The retry in src/refund.ts must stay idempotent.',
      project: project(),
    });
    expect(fresh.status).toBe(200);

    // A later commit changes the file; the next Stop reports it; the worker marks the memory stale.
    write('src/pay.ts', source('retry(5)'));
    const changedAt = commit('change retry');
    expect((await hook('session-end.mjs', 'Stop', { stop_hook_active: false })).code).toBe(0);
    const stale = await waitFor('the memory to go stale', async () => {
      const res = await world.alice().get<Listed>(`/api/memories/${captured.id}`);
      return res.body.code_state === 'stale' ? res.body : undefined;
    });
    expect(stale.anchors?.[0]).toMatchObject({ path: 'src/pay.ts', hash: edited, state: 'stale' });

    // Captured on feature-x, the memory is that branch's: the hooks' recall names the branch.
    expect(captured.branch).toBe('feature-x');
    const recall = await world.alice().post<{ memories: Recalled[] }>('/api/memories/recall', {
      context: 'retry must stay idempotent',
      explain: true,
      tree: { repo: project(), branch: 'feature-x', paths: [] },
    });
    const ids = recall.body.memories.map((m) => m.id);
    expect(ids.indexOf(fresh.body.id)).toBeLessThan(ids.indexOf(captured.id));
    const staleHit = recall.body.memories.find((m) => m.id === captured.id);
    expect(staleHit).toMatchObject({ code_state: 'stale', explain: { code_factor: 0.5 } });

    const startup = await world
      .alice()
      .get<{ text: string; sections: { outdated: Array<{ id: number }> } }>(
        `/api/context/startup?project=${encodeURIComponent(project())}&branch=feature-x`,
      );
    expect(startup.body.sections.outdated.map((m) => m.id)).toEqual([captured.id]);
    expect(startup.body.text).toContain('May be outdated');

    // The agent reads the code and confirms the memory over MCP: current again, at today's code.
    const mcp = await connectMcp(`${world.url()}/mcp`, bearer(world.team.keys.alice));
    const recalled = await callTool(mcp, 'memory_recall', {
      context: 'retry must stay idempotent',
      tree: { repo: project(), branch: 'feature-x', paths: [] },
    });
    expect(recalled.text).toContain('STALE: its code changed since');
    expect(recalled.text).toContain(`code: src/pay.ts@${base.slice(0, 12)} (stale)`);
    const verified = await callTool(mcp, 'memory_verify', { id: captured.id });
    expect(verified.isError).toBeFalsy();
    const now = (await world.alice().get<Listed>(`/api/memories/${captured.id}`)).body;
    expect(now).toMatchObject({ code_state: 'current' });
    expect(now.anchors?.[0]).toMatchObject({ hash: git('hash-object', 'src/pay.ts'), commit: changedAt });
    await mcp.close();

    // A rename moves the anchor; deleting the file orphans it.
    git('mv', 'src/pay.ts', 'src/payments.ts');
    commit('rename');
    expect((await hook('session-end.mjs', 'Stop', { stop_hook_active: false })).code).toBe(0);
    await waitFor('the anchor to move', async () => {
      const res = await world.alice().get<Listed>(`/api/memories/${captured.id}`);
      return res.body.anchors?.[0]?.path === 'src/payments.ts' ? res.body : undefined;
    });
    rmSync(join(world.workdir, 'src/payments.ts'));
    commit('delete');
    expect((await hook('session-end.mjs', 'Stop', { stop_hook_active: false })).code).toBe(0);
    const orphaned = await waitFor('the memory to be orphaned', async () => {
      const res = await world.alice().get<Listed>(`/api/memories/${captured.id}`);
      return res.body.code_state === 'orphaned' ? res.body : undefined;
    });
    expect(orphaned.anchors?.[0]).toMatchObject({ path: 'src/payments.ts', state: 'orphaned' });
  });

  it('CI reports a push with a code-events key; a key without the scope gets 403; another tenant is never touched', async () => {
    const admin = client(world.url(), world.team.keys.admin);
    expect((await admin.post('/api/admin/users', { username: 'ci-bot' })).status).toBe(201);
    const ciKey = await admin.post<{ key: string }>('/api/admin/users/ci-bot/keys', {
      scopes: ['code-events:write'],
      name: 'ci',
    });
    const readerKey = await admin.post<{ key: string }>('/api/admin/users/ci-bot/keys', {
      scopes: ['memories:read'],
      name: 'reader',
    });
    const ci = client(world.url(), ciKey.body.key);
    const reader = client(world.url(), readerKey.body.key);
    const hash = 'b'.repeat(40);
    const repo = `github.com/acme/ci-${randomUUID().slice(0, 8)}`;
    const memory = await world.bob().post<{ id: number }>('/api/memories', {
      content: 'Migrations in db/migrate.ts run in one transaction.',
      project: repo,
      anchors: [{ path: 'db/migrate.ts', hash: 'a'.repeat(40) }],
    });
    expect(memory.status).toBe(200);

    // Another tenant reporting the same repository and path changes nothing here.
    const stranger = client(
      world.url(),
      await adminKeyInOtherTenant(
        `other-${randomUUID().slice(0, 8)}`,
        'admin,memories:read,code-events:write',
      ),
    );
    const theirs = await stranger.post<{ id: number }>('/api/code-events', {
      repo,
      changes: [{ path: 'db/migrate.ts', hash }],
    });
    expect(theirs.status).toBe(202);
    await waitFor('their event to be applied', async () => {
      const res = await stranger.get<{ applied_at: string | null }>(`/api/code-events/${theirs.body.id}`);
      return res.body.applied_at ?? undefined;
    });
    expect((await world.bob().get<Listed>(`/api/memories/${memory.body.id}`)).body.code_state).toBe(
      'current',
    );
    expect((await world.bob().get(`/api/code-events/${theirs.body.id}`)).status).toBe(404);

    const refused = await reader.post('/api/code-events', {
      repo,
      changes: [{ path: 'db/migrate.ts', hash }],
    });
    expect(refused.status).toBe(403);
    const pushed = await ci.post<{ id: number }>('/api/code-events', {
      repo: `https://github.com/${repo.slice('github.com/'.length)}.git`,
      branch: 'main',
      before: 'c'.repeat(40),
      after: 'd'.repeat(40),
      changes: [{ path: 'db/migrate.ts', status: 'modified', hash }],
    });
    expect(pushed).toMatchObject({
      status: 202,
      body: { repo, branch: 'main', changes: 1, applied_at: null },
    });
    const applied = await waitFor('the push to be applied', async () => {
      const res = await world
        .bob()
        .get<{ applied_at: string | null; anchors_changed: number }>(`/api/code-events/${pushed.body.id}`);
      return res.body.applied_at ? res.body : undefined;
    });
    expect(applied.anchors_changed).toBe(1);
    const stale = (await world.bob().get<Listed>(`/api/memories/${memory.body.id}`)).body;
    expect(stale.code_state).toBe('stale');
    // Bad input is a 422 naming the field; nothing is recorded.
    const bad = await ci.post<{ detail: string }>('/api/code-events', {
      repo,
      changes: [{ path: '../outside.ts', hash }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain('path');
  });
});
