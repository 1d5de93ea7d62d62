import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewSessionEvent } from '@app/sessions';
import {
  ExtractSessionMemoriesUseCase,
  RecordSessionEventsUseCase,
  StartSessionUseCase,
  UpdateSessionUseCase,
} from '@app/sessions';
import { type Principal } from '@app/tenancy';
import { DeterministicEmbedderProvider, newMemory } from '@app/testing';
import { embeddingHarness, type EmbeddingHarness } from '../../../test/support/embedding-harness';
import { fakeGithubToken } from '../../../test/support/fake-secrets';
import { waitFor } from '../../../test/support/wait-for';

interface MemoryRow {
  id: string;
  owner_id: string;
  content: string;
  category: string;
  tags: string[];
  importance: number;
  project: string | null;
  visibility: string;
  updated_at: string;
}

const MODEL = 'test-det-256d';

/**
 * The `sessions.extract` job against real Postgres, with every job handler running in-process and
 * a deterministic embedder, so `check` finds near matches the way it does in production.
 */
describe('session extraction (sessions.extract)', () => {
  const embedders = new DeterministicEmbedderProvider(MODEL, { [MODEL]: 256 });
  let h: EmbeddingHarness;
  let alice: Principal;
  let bob: Principal;
  let start: StartSessionUseCase;
  let record: RecordSessionEventsUseCase;
  let update: UpdateSessionUseCase;
  let extract: ExtractSessionMemoriesUseCase;

  const sql = async <T>(text: string, params: unknown[] = []) =>
    (await h.db.tx.asSystem((tx) => tx.query<T>(text, params))).rows;
  const session = async (who: Principal, project = 'atlas') =>
    (await start.execute(who, { agent: 'claude-code', project })).id;
  /** Ends a session with a key that may not write memories: no job is enqueued, the test runs it. */
  const endQuietly = (who: Principal, id: string) =>
    update.execute({ ...who, scopes: ['sessions:write'] }, id, { status: 'ended' });
  const captured = (sessionId: string) =>
    sql<MemoryRow>(
      `SELECT id, owner_id, content, category, tags, importance, project, visibility, updated_at::text
         FROM memories WHERE $1 = ANY(tags) AND deleted_at IS NULL ORDER BY id`,
      [`session:${sessionId}`],
    );
  const stored = async (who: Principal, content: string, visibility: 'team' | 'private' = 'private') => {
    const { id } = await h.create.execute(who, newMemory(content, { visibility }));
    await waitFor(`memory ${id} embedded`, async () =>
      (await h.embeddingsOf(id)).length === 1 ? true : undefined,
    );
    return id;
  };
  const similarity = (a: string, b: string) => {
    const [x, y] = [embedders.embedder(MODEL).vector(a), embedders.embedder(MODEL).vector(b)];
    return x.reduce((sum, v, i) => sum + v * y[i], 0);
  };

  beforeAll(async () => {
    h = await embeddingHarness('session_extract', { EMBEDDING_MODEL: MODEL }, embedders);
    alice = await h.principal('alice');
    bob = await h.principal('bob');
    start = h.app.get(StartSessionUseCase);
    record = h.app.get(RecordSessionEventsUseCase);
    update = h.app.get(UpdateSessionUseCase);
    extract = h.app.get(ExtractSessionMemoriesUseCase);
  });
  afterAll(async () => h?.close());

  it('turns notes, corrections and decisions into memories of the session’s project, tagged with the session', async () => {
    const id = await session(alice, 'github.com/acme/atlas');
    const events: NewSessionEvent[] = [
      {
        kind: 'prompt',
        payload: { prompt: 'Remember that the billing service times out after 30 seconds.' },
      },
      { kind: 'prompt', payload: { prompt: 'do you remember how we fixed the flaky login test?' } },
      {
        kind: 'tool_call',
        payload: { tool: 'Bash', input: 'echo "remember that tool output is not a note"' },
      },
      { kind: 'note', payload: { text: 'Release tags are cut from main', tags: ['release'] } },
      { kind: 'correction', payload: { text: "Don't use moment.js, use date-fns" } },
      { kind: 'prompt', payload: { prompt: 'ok. We decided to keep one Postgres per region.' } },
    ];
    await record.execute(alice, id, events);
    await endQuietly(alice, id);

    const summary = await extract.execute(alice, id);
    expect(summary).toMatchObject({
      events: 6,
      candidates: 4,
      outcomes: { stored: 4, superseded: 0, duplicate: 0, similar: 0, failed: 0 },
    });
    const rows = await captured(id);
    expect(rows.map((r) => [r.content, r.category, r.importance])).toEqual([
      ['The billing service times out after 30 seconds.', 'notes', 0.6],
      ['Release tags are cut from main', 'notes', 0.6],
      ['Use date-fns, not moment.js.', 'corrections', 0.7],
      ['We decided to keep one Postgres per region.', 'decisions', 0.7],
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({
        owner_id: alice.userId,
        project: 'github.com/acme/atlas',
        visibility: 'team',
      });
      expect(row.tags).toEqual(expect.arrayContaining(['session-capture', `session:${id}`]));
    }
    expect(rows[1].tags).toContain('release');
    // What the user asked to remember (a prompt's "remember that …", a note) is tagged for the next
    // startup context; corrections and decisions have sections of their own.
    expect(rows.map((r) => r.tags.includes('requested'))).toEqual([true, true, false, false]);

    const [state] = await sql<{ extracted: boolean; pending: number }>(
      `SELECT s.extracted_at IS NOT NULL AS extracted,
              (SELECT count(*)::int FROM session_events e WHERE e.session_id = s.id AND e.extracted_at IS NULL) AS pending
         FROM sessions s WHERE s.id = $1`,
      [id],
    );
    expect(state).toEqual({ extracted: true, pending: 0 });
  });

  it('runs again without creating anything twice, even when the events were never marked', async () => {
    const id = await session(alice);
    await record.execute(alice, id, [
      { kind: 'note', payload: { text: 'The docs site deploys from the gh-pages branch' } },
      { kind: 'correction', payload: { text: 'No, use pnpm instead of yarn for the docs site' } },
    ]);
    await endQuietly(alice, id);
    await extract.execute(alice, id);
    const first = await captured(id);
    expect(first).toHaveLength(2);

    expect(await extract.execute(alice, id)).toMatchObject({ events: 0, candidates: 0 });
    // A run that died after storing but before marking: the repeat finds every candidate known.
    await sql(`UPDATE session_events SET extracted_at = NULL WHERE session_id = $1`, [id]);
    expect(await extract.execute(alice, id)).toMatchObject({
      events: 2,
      outcomes: { stored: 0, superseded: 0, duplicate: 2 },
    });
    expect(await captured(id)).toEqual(first);
  });

  it('lets a correction supersede the close memory it corrects, as memory_correct does', async () => {
    const old = 'Use npm for installing packages in the atlas repo';
    const correction = 'Use pnpm instead of npm for installing packages in the atlas repo.';
    const sim = similarity(old, correction);
    expect(sim).toBeGreaterThan(0.75);
    expect(sim).toBeLessThan(0.92);
    const oldId = await stored(alice, old);

    const id = await session(alice);
    await record.execute(alice, id, [
      {
        kind: 'prompt',
        payload: { prompt: 'No, use pnpm instead of npm for installing packages in the atlas repo' },
      },
    ]);
    await endQuietly(alice, id);
    expect(await extract.execute(alice, id)).toMatchObject({ outcomes: { superseded: 1, stored: 0 } });

    const [corrected] = await captured(id);
    expect(corrected).toMatchObject({ content: correction, category: 'corrections' });
    expect(
      await sql(`SELECT src_id, dst_id, link_type FROM memory_links WHERE dst_id = $1`, [oldId]),
    ).toEqual([{ src_id: corrected.id, dst_id: String(oldId), link_type: 'supersedes' }]);
    // The old memory stays as history, unchanged.
    expect(await sql(`SELECT content, deleted_at FROM memories WHERE id = $1`, [oldId])).toEqual([
      { content: old, deleted_at: null },
    ]);
  });

  it('skips a note the user already has, exactly or nearly', async () => {
    await stored(alice, 'Staging resets every Monday.');
    const close = 'The CI runner has no GPU and 4 cores';
    const closer = 'The CI runner has no GPU and 8 cores.';
    expect(similarity(close, closer)).toBeGreaterThan(0.75);
    expect(similarity(close, closer)).toBeLessThan(0.92);
    await stored(alice, close);

    const id = await session(alice);
    await record.execute(alice, id, [
      { kind: 'prompt', payload: { text: 'remember that staging resets every Monday' } },
      { kind: 'prompt', payload: { text: 'remember that the CI runner has no GPU and 8 cores' } },
    ]);
    await endQuietly(alice, id);
    expect(await extract.execute(alice, id)).toMatchObject({
      candidates: 2,
      outcomes: { stored: 0, duplicate: 1, similar: 1 },
    });
    expect(await captured(id)).toEqual([]);
  });

  it('never links or changes another user’s memories; a teammate’s team fact answers a repeat of it', async () => {
    const bobsSimilar = await stored(
      bob,
      'Use yarn classic for installing packages in the orion repo',
      'team',
    );
    const bobsSame = await stored(bob, 'The orion repo uses Node 20.', 'team');
    const bobsPrivate = await stored(bob, 'The orion repo pins pnpm 9.', 'private');
    const before = await sql<MemoryRow>(
      `SELECT id, content, updated_at::text FROM memories WHERE owner_id = $1`,
      [bob.userId],
    );

    const id = await session(alice, 'orion');
    await record.execute(alice, id, [
      {
        kind: 'prompt',
        payload: { text: 'no, use pnpm instead of yarn classic for installing packages in the orion repo' },
      },
      { kind: 'note', payload: { text: 'remember that the orion repo uses Node 20' } },
      { kind: 'note', payload: { text: 'remember that the orion repo pins pnpm 9', visibility: 'team' } },
    ]);
    await endQuietly(alice, id);
    // The correction is alice's own (never a supersede of bob's); "Node 20" is bob's team fact again,
    // which answers it; bob's private note is not hers to match.
    expect(await extract.execute(alice, id)).toMatchObject({
      outcomes: { stored: 2, superseded: 0, duplicate: 1 },
    });

    expect((await captured(id)).map((r) => r.owner_id)).toEqual([alice.userId, alice.userId]);
    expect(
      await sql(`SELECT 1 FROM memory_links WHERE dst_id = ANY($1::bigint[])`, [
        [bobsSimilar, bobsSame, bobsPrivate],
      ]),
    ).toEqual([]);
    expect(
      await sql<MemoryRow>(`SELECT id, content, updated_at::text FROM memories WHERE owner_id = $1`, [
        bob.userId,
      ]),
    ).toEqual(before);

    // Bob running the job on alice's session reads nothing of it.
    await sql(`UPDATE session_events SET extracted_at = NULL WHERE session_id = $1`, [id]);
    expect(await extract.execute(bob, id)).toMatchObject({ events: 0, candidates: 0 });
  });

  it('keeps secrets redacted: the memory holds the placeholder, never the secret', async () => {
    const token = fakeGithubToken();
    const id = await session(alice);
    await record.execute(alice, id, [
      { kind: 'note', payload: { text: `remember that the deploy bot token is ${token}` } },
      { kind: 'prompt', payload: { prompt: `We decided to rotate ${token} every month` } },
    ]);
    await endQuietly(alice, id);
    await extract.execute(alice, id);

    const rows = await captured(id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.content).toContain('[REDACTED:');
      expect(row.content).not.toContain(token);
    }
    expect(await sql(`SELECT 1 FROM memories WHERE content LIKE $1`, [`%${token}%`])).toEqual([]);
  });

  it('extracts nothing from an active session, and only the new events when ended again', async () => {
    const id = await session(alice);
    await record.execute(alice, id, [
      { kind: 'note', payload: { text: 'Feature flags live in LaunchDarkly' } },
    ]);
    expect(await extract.execute(alice, id)).toMatchObject({ events: 0 });

    await endQuietly(alice, id);
    expect(await extract.execute(alice, id)).toMatchObject({ events: 1, outcomes: { stored: 1 } });
    await record.execute(alice, id, [
      { kind: 'note', payload: { text: 'The flag cache refreshes every minute' } },
    ]);
    await endQuietly(alice, id);
    expect(await extract.execute(alice, id)).toMatchObject({ events: 1, outcomes: { stored: 1 } });
    expect((await captured(id)).map((r) => r.content)).toEqual([
      'Feature flags live in LaunchDarkly',
      'The flag cache refreshes every minute',
    ]);
  });

  it('ending a session enqueues the job through the outbox with the key’s default visibility; a note may ask for private', async () => {
    const id = await session(alice);
    await record.execute(alice, id, [
      { kind: 'note', payload: { text: 'The search index rebuilds nightly' } },
      {
        kind: 'note',
        payload: { text: 'My review queue is filtered by label:atlas', visibility: 'private' },
      },
    ]);
    const keyWithPrivateDefault: Principal = { ...alice, defaultVisibility: 'private' };
    await update.execute(keyWithPrivateDefault, id, { status: 'abandoned' });

    const [job] = await sql<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM outbox WHERE job_name = 'sessions.extract' AND payload->>'sessionId' = $1`,
      [id],
    );
    expect(job.payload).toMatchObject({
      tenantId: alice.tenantId,
      userId: alice.userId,
      keyId: alice.keyId,
      defaultVisibility: 'private',
    });
    const rows = await waitFor('the job to store both notes', async () => {
      const found = await captured(id);
      return found.length === 2 ? found : undefined;
    });
    expect(rows.map((r) => r.visibility)).toEqual(['private', 'private']);

    const teamId = await session(alice);
    await record.execute(alice, teamId, [
      { kind: 'note', payload: { text: 'The search cluster has three nodes' } },
      { kind: 'note', payload: { text: 'My on-call handle is @alice-oncall', private: true } },
    ]);
    await update.execute(alice, teamId, { status: 'ended' });
    const teamRows = await waitFor('the job to store both notes', async () => {
      const found = await captured(teamId);
      return found.length === 2 ? found : undefined;
    });
    expect(teamRows.map((r) => r.visibility)).toEqual(['team', 'private']);
  });

  it('a key that may not write memories ends the session without capture', async () => {
    const id = await session(alice);
    await record.execute(alice, id, [
      { kind: 'note', payload: { text: 'Nothing should come of this note' } },
    ]);
    await endQuietly(alice, id);
    expect(
      await sql(`SELECT 1 FROM outbox WHERE job_name = 'sessions.extract' AND payload->>'sessionId' = $1`, [
        id,
      ]),
    ).toEqual([]);
  });
});
