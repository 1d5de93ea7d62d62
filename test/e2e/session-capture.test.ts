import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';
import { fakeGithubToken } from '../support/fake-secrets';

interface ListedMemory {
  id: number;
  content: string;
  category: string;
  tags: string;
  project: string | null;
  visibility: string;
}

/** Session capture through the front door: events in, session ended, memories out (built API and worker). */
describe('session capture: an ended session’s notes, corrections and decisions become memories', () => {
  const team = teamFixture();
  let api: ApiProcess;
  let worker: WorkerProcess;

  beforeAll(async () => {
    [api, worker] = await Promise.all([startApiProcess(team.env), startWorkerProcess(team.env)]);
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const extractedAt = (id: string) =>
    withDb(async (db) => {
      const { rows } = await db.query(`SELECT extracted_at::text AS at FROM sessions WHERE id = $1`, [id]);
      return (rows[0] as { at: string | null } | undefined)?.at ?? null;
    });

  it('PATCH ended → the worker stores the candidates; ending again stores nothing twice', async () => {
    const alice = client(api.url, team.keys.alice);
    const bob = client(api.url, team.keys.bob);
    const secret = fakeGithubToken();
    const id = randomUUID();
    expect(
      (await alice.post('/api/sessions', { id, agent: 'claude-code', project: 'capture-e2e' })).status,
    ).toBe(200);
    const events = [
      { kind: 'prompt', payload: { prompt: 'Remember that the e2e cluster is rebuilt every night.' } },
      { kind: 'prompt', payload: { prompt: 'Do you remember why the cache test is skipped?' } },
      { kind: 'note', payload: { text: `The release bot token is ${secret}`, tags: ['release'] } },
      { kind: 'correction', payload: { text: 'No, use vitest instead of jest' } },
      { kind: 'prompt', payload: { prompt: "Let's go with Fastify for the capture service." } },
      { kind: 'tool_call', payload: { tool: 'Bash', input: 'echo "we decided to ignore tool output"' } },
    ];
    expect((await alice.post(`/api/sessions/${id}/events`, { events })).status).toBe(202);
    expect((await alice.request('PATCH', `/api/sessions/${id}`, { status: 'ended' })).status).toBe(200);

    const tag = encodeURIComponent(`session:${id}`);
    const listed = await waitFor('the worker to store the captured memories', async () => {
      const res = await alice.get<{ memories: ListedMemory[] }>(`/api/memories?tag=${tag}`);
      return res.body.memories?.length === 4 ? res.body.memories : undefined;
    });
    const byContent = new Map(listed.map((m) => [m.content.replace(/\[REDACTED:[^\]]+\]/, '[REDACTED]'), m]));
    expect([...byContent.keys()].sort()).toEqual(
      [
        'The e2e cluster is rebuilt every night.',
        'The release bot token is [REDACTED]',
        'Use vitest instead of jest.',
        "Let's go with Fastify for the capture service.",
      ].sort(),
    );
    expect(byContent.get('Use vitest instead of jest.')?.category).toBe('corrections');
    expect(byContent.get("Let's go with Fastify for the capture service.")?.category).toBe('decisions');
    for (const memory of listed) {
      expect(memory.project).toBe('capture-e2e');
      expect(memory.tags.split(',')).toEqual(expect.arrayContaining(['session-capture', `session:${id}`]));
      // The fixture's DEFAULT_VISIBILITY is private: the key's default applies.
      expect(memory.visibility).toBe('private');
    }
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect((await bob.get<{ memories: ListedMemory[] }>(`/api/memories?tag=${tag}`)).body.memories).toEqual(
      [],
    );

    // Ending again runs the job again (it records extracted_at), and it finds nothing new.
    const first = await extractedAt(id);
    expect(first).not.toBeNull();
    expect((await alice.request('PATCH', `/api/sessions/${id}`, { status: 'ended' })).status).toBe(200);
    await waitFor('the second extraction', async () =>
      (await extractedAt(id)) !== first ? true : undefined,
    );
    const again = await alice.get<{ memories: ListedMemory[] }>(`/api/memories?tag=${tag}`);
    expect(again.body.memories.map((m) => m.id).sort()).toEqual(listed.map((m) => m.id).sort());
    expect(api.output() + worker.output()).not.toContain(secret);
  });
});
