import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookFixture } from '../support/hook-fixture';
import { hookSessionId, runHookScript } from '../support/hook-runner';
import { startWorkerProcess, type WorkerProcess } from '../support/processes';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';

/**
 * Capture keeps one fact once per team: Bob's Claude Code session repeats a decision Alice already
 * stored for the team; when the session ends, the worker's capture answers Alice's memory and
 * writes no second team row (the hooks run as Claude Code runs them).
 */
describe('capture from a teammate’s session folds into the team memory', () => {
  const world = hookFixture({ DEFAULT_VISIBILITY: 'team' });
  let worker: WorkerProcess;
  beforeAll(async () => {
    worker = await startWorkerProcess(world.team.env);
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('Bob’s session decision that Alice stored already leaves one team row', async () => {
    const decision = `We decided to use pnpm workspaces instead of npm for ${world.repo}.`;
    const project = `github.com/acme/${world.repo}`;
    const alices = await world.alice().post<{ id: number }>('/api/memories', {
      content: decision,
      category: 'decisions',
      project,
    });
    expect(alices.status, JSON.stringify(alices.body)).toBe(200);

    const env = world.env(world.url(), world.newSpool(), { MEMORY_API_KEY: world.team.keys.bob });
    const claude = randomUUID();
    for (const [script, event, fields] of [
      ['session-start.mjs', 'SessionStart', { source: 'startup' }],
      ['user-prompt-submit.mjs', 'UserPromptSubmit', { prompt: decision }],
      ['session-end.mjs', 'Stop', { stop_hook_active: false }],
    ] as const) {
      const run = await runHookScript(script, world.input(claude, event, fields), env);
      expect(run.code, `${script}: ${run.stderr}`).toBe(0);
    }
    const sessionId = hookSessionId('claude-code', claude);
    await waitFor('the worker to run capture on Bob’s session', () =>
      withDb(async (db) => {
        const { rows } = await db.query<{ extracted_at: Date | null }>(
          `SELECT extracted_at FROM sessions WHERE id = $1`,
          [sessionId],
        );
        return rows[0]?.extracted_at ?? undefined;
      }),
    );
    const rows = await withDb(async (db) => {
      const { rows } = await db.query<{ id: string; owner: string }>(
        `SELECT m.id, u.username AS owner FROM memories m JOIN users u ON u.id = m.owner_id
          WHERE m.project = $1 AND m.deleted_at IS NULL ORDER BY m.id`,
        [project],
      );
      return rows;
    });
    expect(rows).toEqual([{ id: String(alices.body.id), owner: 'alice' }]);
  });
});
