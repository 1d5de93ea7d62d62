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
import { queueText } from '../support/queue-text';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';
import { fakeGithubToken } from '../support/fake-secrets';

describe('session events through the outbox, Redis and a worker process (built API and worker)', () => {
  const team = teamFixture();
  let api: ApiProcess;
  let worker: WorkerProcess;

  beforeAll(async () => {
    [api, worker] = await Promise.all([startApiProcess(team.env), startWorkerProcess(team.env)]);
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  it('answers 202, the worker processes the batch, and a secret in a prompt reaches neither database, Redis nor logs', async () => {
    const alice = client(api.url, team.keys.alice);
    const secret = fakeGithubToken();
    const id = randomUUID();
    expect((await alice.post('/api/sessions', { id, agent: 'claude-code', project: 'worker' })).status).toBe(
      200,
    );
    const res = await alice.post(`/api/sessions/${id}/events`, {
      events: [
        { kind: 'prompt', payload: { text: `the token is ${secret}` } },
        { kind: 'tool_call', payload: { tool: 'Bash', input: `GITHUB_TOKEN=${secret} gh pr list` } },
      ],
    });
    expect(res).toMatchObject({ status: 202, body: { accepted: 2, session_id: id } });

    const detail = await waitFor('the worker to process the batch', async () => {
      const got = await alice.get<{ events_total: number; events_processed: number }>(`/api/sessions/${id}`);
      return got.body.events_processed === 2 ? got.body : undefined;
    });
    expect(detail.events_total).toBe(2);

    const stored = await withDb(async (db) => {
      const { rows } = await db.query(`SELECT payload::text AS p FROM session_events WHERE session_id = $1`, [
        id,
      ]);
      return rows.map((row: { p: string }) => row.p).join('\n');
    });
    expect(stored).toContain('[REDACTED:');
    expect(stored).not.toContain(secret);
    expect(await queueText(team.env.QUEUE_PREFIX)).not.toContain(secret);
    expect(api.output() + worker.output()).not.toContain(secret);
  });
});
