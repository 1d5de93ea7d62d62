import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture } from './e2e-env';
import { client } from './http-client';

export interface SessionDetail {
  id: string;
  agent: string;
  project: string | null;
  cwd: string | null;
  git_branch: string | null;
  status: string;
  ended_at: string | null;
  event_counts: Record<string, number>;
  events_total: number;
}
export interface Timeline {
  events: Array<{ kind: string; payload: Record<string, unknown>; created_at: string }>;
}

/**
 * A started API (in process) with a fresh team, a scratch directory and a git work tree whose
 * origin is github.com/acme/<repo> on branch feature-x, for tests that run the hook scripts.
 * Registers its own beforeAll/afterAll; call it inside a describe. `overrides` go to the team's env.
 */
export function hookFixture(overrides: Record<string, string> = {}) {
  const team = teamFixture(overrides);
  const repo = `r${randomUUID().slice(0, 8)}`;
  const scratch = mkdtempSync(join(tmpdir(), 'memory-hooks-'));
  const workdir = join(scratch, 'repo');
  let api: StartedApi | undefined;

  beforeAll(async () => {
    api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
    execFileSync('git', ['init', '-q', workdir], { stdio: 'ignore' });
    const git = (...args: string[]) => execFileSync('git', ['-C', workdir, ...args], { stdio: 'ignore' });
    git('remote', 'add', 'origin', `git@github.com:acme/${repo}.git`);
    git('checkout', '-q', '-b', 'feature-x');
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const url = () => {
    if (!api) throw new Error('the API is not started yet');
    return api.url;
  };
  const alice = () => client(url(), team.keys.alice);
  return {
    team,
    repo,
    scratch,
    workdir,
    url,
    alice,
    bob: () => client(url(), team.keys.bob),
    newSpool: () => mkdtempSync(join(scratch, 'spool-')),
    /** The hooks' environment: the service at `serviceUrl`, alice's key, a spool directory. */
    env: (serviceUrl: string, spoolDir: string, extra: Record<string, string> = {}) => ({
      MEMORY_API_URL: serviceUrl,
      MEMORY_API_KEY: team.keys.alice,
      MEMORY_SPOOL_DIR: spoolDir,
      // Not timed against the live service; the fault cases set their own limit.
      MEMORY_HOOK_TIMEOUT_MS: '15000',
      HOME: scratch,
      ...extra,
    }),
    /** Claude Code's hook input: the common fields plus the event's own. */
    input: (sessionId: string, event: string, fields: Record<string, unknown> = {}) => ({
      session_id: sessionId,
      transcript_path: join(scratch, `${sessionId}.jsonl`),
      cwd: workdir,
      permission_mode: 'default',
      hook_event_name: event,
      ...fields,
    }),
    detail: async (id: string) => alice().get<SessionDetail>(`/api/sessions/${id}`),
    timeline: async (id: string) =>
      (await alice().get<Timeline>(`/api/sessions/${id}/timeline?window=100`)).body,
  };
}
