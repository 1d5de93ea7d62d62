import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_FRAME_NOTE, estimateTokens } from '@app/kernel';
import { hookFixture } from '../support/hook-fixture';
import { hookSessionId, runHookScript } from '../support/hook-runner';
import { client } from '../support/http-client';
import { startWorkerProcess, type WorkerProcess } from '../support/processes';
import { waitFor } from '../support/wait-for';

interface ListedMemory {
  id: number;
  content: string;
  category: string;
  tags: string;
  project: string | null;
}

/** The block the SessionStart hook printed, without the session id line the hook adds after it. */
const blockOf = (stdout: string) => stdout.split('\n\nTeam memory session id:')[0];
/** The first entry of the block's data section: its header line. */
const firstEntry = (block: string) =>
  block.split(`${DATA_FRAME_NOTE}\n`)[1]?.split('\n').slice(0, 3).join('\n');

/**
 * Pinned and requested knowledge at startup, as an agent meets it: the real hook scripts, run as
 * Claude Code runs them. "Remember that …" said in one session becomes a memory that the next
 * session of the project starts with; a pinned memory comes before everything else; a small
 * token budget is kept and the block says what it left out.
 */
describe('“remember that …” and pins reach the next session’s startup context', () => {
  const world = hookFixture();
  let worker: WorkerProcess;
  beforeAll(async () => {
    worker = await startWorkerProcess(world.team.env);
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('a remembered fact and a pinned memory start the next session, within a token budget', async () => {
    const spool = world.newSpool();
    const project = `github.com/acme/${world.repo}`;
    const hook = (
      script: string,
      claude: string,
      event: string,
      fields: Record<string, unknown> = {},
      extra: Record<string, string> = {},
    ) => runHookScript(script, world.input(claude, event, fields), world.env(world.url(), spool, extra));

    // Session one: the user asks to remember a fact, then the session stops.
    const first = randomUUID();
    expect(await hook('session-start.mjs', first, 'SessionStart', { source: 'startup' })).toMatchObject({
      code: 0,
    });
    for (const [script, event, fields] of [
      ['user-prompt-submit.mjs', 'UserPromptSubmit', { prompt: 'remember that we deploy with helm 3' }],
      ['session-end.mjs', 'Stop', { stop_hook_active: false }],
    ] as const) {
      expect(await hook(script, first, event, fields), `${script} for ${event}`).toMatchObject({
        code: 0,
        stdout: '',
      });
    }
    const tag = encodeURIComponent(`session:${hookSessionId('claude-code', first)}`);
    const [remembered] = await waitFor('the worker to capture the request', async () => {
      const res = await world.alice().get<{ memories: ListedMemory[] }>(`/api/memories?tag=${tag}`);
      return res.body.memories?.length ? res.body.memories : undefined;
    });
    expect(remembered).toMatchObject({ project, content: 'We deploy with helm 3.' });
    expect(remembered.tags.split(',')).toContain('requested');

    // The next session starts with it, although its importance is below the "important" bar.
    const second = await hook('session-start.mjs', randomUUID(), 'SessionStart', { source: 'startup' });
    expect(second.code).toBe(0);
    expect(blockOf(second.stdout)).toContain('## Asked to remember');
    expect(blockOf(second.stdout)).toContain('We deploy with helm 3.');

    // Important memories of the project, and one pinned by the team's admin: the pin comes first.
    const alice = world.alice();
    for (let i = 0; i < 12; i++) {
      await alice.post('/api/memories', {
        content: `Service ${i} of ${world.repo} pages the on-call engineer on every 5xx spike above the baseline`,
        category: 'runbooks',
        importance: 0.9,
        project,
      });
    }
    const pinned = await alice.post<{ id: number }>('/api/memories', {
      content: `Releases of ${world.repo} are frozen on Fridays`,
      category: 'facts',
      importance: 0.2,
      project,
      visibility: 'team',
    });
    const admin = client(world.url(), world.team.keys.admin);
    expect((await alice.post(`/api/memories/${pinned.body.id}/pin`, { scope: 'team' })).status).toBe(403);
    expect(await admin.post(`/api/memories/${pinned.body.id}/pin`, { scope: 'team' })).toMatchObject({
      status: 200,
      body: { id: pinned.body.id, scope: 'team', pinned: true, changed: true },
    });
    expect((await alice.get<{ pinned: string[] }>(`/api/memories/${pinned.body.id}`)).body.pinned).toEqual([
      'team',
    ]);

    const third = await hook('session-start.mjs', randomUUID(), 'SessionStart', { source: 'startup' });
    expect(third.code).toBe(0);
    expect(firstEntry(blockOf(third.stdout))).toMatch(
      new RegExp(
        `^\\n## Pinned\\n#${pinned.body.id} · facts · by alice · \\d{4}-\\d{2}-\\d{2} · pinned for the team`,
      ),
    );
    expect(blockOf(third.stdout)).toContain('We deploy with helm 3.');

    // A small token budget: kept, the pin and the request still shown, the rest named as left out.
    const tokens = 400;
    const small = await hook(
      'session-start.mjs',
      randomUUID(),
      'SessionStart',
      { source: 'startup' },
      { MEMORY_CONTEXT_TOKENS: String(tokens) },
    );
    const block = blockOf(small.stdout);
    expect(estimateTokens(block)).toBeLessThanOrEqual(tokens);
    expect(firstEntry(block)).toContain(`#${pinned.body.id} · facts`);
    expect(block).toContain('We deploy with helm 3.');
    expect(block).toMatch(
      new RegExp(
        `\\[\\d+ more not shown to stay within the budget \\(6000 characters, ${tokens} tokens\\): [^\\]]*\\d+ important \\(#\\d+`,
      ),
    );
    const structured = await alice.get<{
      tokens: number;
      left_out: { important: number[] };
      omitted: number;
    }>(`/api/context/startup?project=${encodeURIComponent(project)}&tokens=${tokens}&budget=6000`);
    expect(structured.body.tokens).toBe(tokens);
    expect(structured.body.left_out.important.length).toBeGreaterThan(0);
    expect(structured.body.omitted).toBeGreaterThanOrEqual(structured.body.left_out.important.length);

    // Unpinning is the admin's too; the memory stays.
    expect((await alice.delete(`/api/memories/${pinned.body.id}/pin?scope=team`)).status).toBe(403);
    expect(await admin.delete(`/api/memories/${pinned.body.id}/pin?scope=team`)).toMatchObject({
      status: 200,
      body: { id: pinned.body.id, scope: 'team', pinned: false, changed: true },
    });
    expect((await alice.get<{ pinned: string[] }>(`/api/memories/${pinned.body.id}`)).body.pinned).toEqual(
      [],
    );
  });
});
