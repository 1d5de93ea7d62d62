import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { runCli } from '../../apps/cli/src/cli';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { waitFor } from '../support/wait-for';

interface JobBody {
  id: string;
  kind: string;
  status: string;
  progress: { total: number | null; done: number; failed: number };
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** An admin key in another tenant of the same database, made with the CLI. */
async function otherTenantAdminKey(tenant: string): Promise<string> {
  const config = () => loadConfig({ DATABASE_URL: inject('databaseUrl') });
  const quiet = { out: () => undefined, err: () => undefined };
  await runCli(['users', 'create', 'root', '--admin', '--tenant', tenant], { io: quiet, loadConfig: config });
  let out = '';
  await runCli(['--json', 'keys', 'create', '--user', 'root', '--scopes', 'admin', '--tenant', tenant], {
    io: { out: (t) => void (out += t), err: () => undefined },
    loadConfig: config,
  });
  return (JSON.parse(out) as { key: string }).key;
}

describe('embedding reindex and job progress over REST (built API and worker)', () => {
  const team = teamFixture();
  let api: ApiProcess;
  let worker: WorkerProcess;

  beforeAll(async () => {
    [api, worker] = await Promise.all([startApiProcess(team.env), startWorkerProcess(team.env)]);
    await client(api.url, team.keys.alice).post('/api/memories', {
      content: 'The staging database is Postgres 15',
    });
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  it('starts a reindex (202 + job id) that the worker runs to completion, with progress readable', async () => {
    const admin = client(api.url, team.keys.admin);
    const started = await admin.post<{ job_id: string }>('/api/admin/embeddings/reindex', {
      model: 'glove-sif-100d',
    });
    expect(started.status).toBe(202);
    expect(started.body.job_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.headers.get('location')).toBe(`/api/admin/jobs/${started.body.job_id}`);

    const done = await waitFor('reindex job to finish', async () => {
      const res = await admin.get<JobBody>(`/api/admin/jobs/${started.body.job_id}`);
      expect(res.status).toBe(200);
      return res.body.status === 'succeeded' || res.body.status === 'failed' ? res.body : undefined;
    });
    expect(done).toMatchObject({
      id: started.body.job_id,
      kind: 'embeddings.reindex',
      status: 'succeeded',
      error: null,
    });
    expect(done.progress.failed).toBe(0);
    expect(done.progress.done).toBe(done.progress.total);
    expect(done.progress.total).toBeGreaterThanOrEqual(1);
    expect(Object.keys(done).sort()).toEqual(
      [
        ...['created_at', 'error', 'finished_at', 'id', 'kind', 'progress', 'started_at', 'status'],
        ...['name', 'state', 'attempts', 'max_attempts', 'queue_job_id', 'tracked_job_id'],
      ].sort(),
    );
  });

  it('refuses members (403), bad bodies (422), and hides jobs from other tenants (404)', async () => {
    const admin = client(api.url, team.keys.admin);
    const alice = client(api.url, team.keys.alice);
    expect((await alice.post('/api/admin/embeddings/reindex', { model: 'glove-sif-100d' })).status).toBe(403);
    for (const body of [{}, { model: '../etc/passwd' }, { model: 42 }]) {
      const res = await admin.post('/api/admin/embeddings/reindex', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ detail: expect.stringContaining('model') });
    }

    const { body } = await admin.post<{ job_id: string }>('/api/admin/embeddings/reindex', {
      model: 'glove-sif-100d',
    });
    const outsider = client(api.url, await otherTenantAdminKey(`${team.tenant}-other`));
    expect((await outsider.get(`/api/admin/jobs/${body.job_id}`)).status).toBe(404);
    expect((await admin.get('/api/admin/jobs/not-a-uuid')).status).toBe(404);
    expect((await alice.get(`/api/admin/jobs/${body.job_id}`)).status).toBe(403);
    await waitFor('second job to finish', async () => {
      const res = await admin.get<JobBody>(`/api/admin/jobs/${body.job_id}`);
      return res.body.status === 'succeeded' ? true : undefined;
    });
  });
});
