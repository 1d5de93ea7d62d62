import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { adminKeyInOtherTenant } from '../support/other-tenant';
import { startApiProcess, type ApiProcess } from '../support/processes';

type Job = {
  id: string;
  name: string;
  status: string;
  state: string | null;
  attempts: number | null;
  error: string | null;
  tracked_job_id: string | null;
  queue_job_id: string | null;
};
type JobsPage = { jobs: Job[]; next_cursor: string | null };

describe('admin jobs and stats (built API producing into BullMQ, no worker)', () => {
  const team = teamFixture();
  const connection = { url: inject('redisUrl') };
  let api: ApiProcess;
  let admin: ReturnType<typeof client>;
  let alice: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;
  let stranger: ReturnType<typeof client>;
  let tenantId: string;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    admin = client(api.url, team.keys.admin);
    alice = client(api.url, team.keys.alice);
    bob = client(api.url, team.keys.bob);
    stranger = client(api.url, await adminKeyInOtherTenant(`other-${randomUUID().slice(0, 8)}`));
    const db = new Client({ connectionString: inject('databaseUrl') });
    await db.connect();
    tenantId = (await db.query<{ id: string }>(`SELECT id FROM tenants WHERE slug = $1`, [team.tenant]))
      .rows[0].id;
    await db.end();
  });
  afterAll(async () => {
    await api?.stop();
  });

  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    for (let i = 0; ; i++) {
      const value = await read();
      if (done(value) || i > 100) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('a started job answers 202 with Location; the tenant lists and reads it, cancels it; others get 404', async () => {
    const started = await admin.post<{ job_id: string }>('/api/admin/secrets/migrate', {});
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(`/api/admin/jobs/${started.body.job_id}`);
    const byLocation = await eventually(
      () => admin.get<Job>(started.headers.get('location')!),
      (res) => res.body.state === 'waiting',
    );
    expect(byLocation.body).toMatchObject({
      id: started.body.job_id,
      name: 'secrets.migrate',
      status: 'queued',
    });
    const queueId = byLocation.body.queue_job_id!;

    const list = await admin.get<JobsPage>('/api/admin/jobs?state=waiting&name=secrets.migrate');
    expect(list.body.jobs.map((j) => j.id)).toContain(queueId);
    expect((await admin.get<Job>(`/api/admin/jobs/${queueId}`)).body.tracked_job_id).toBe(
      started.body.job_id,
    );

    expect((await stranger.get(`/api/admin/jobs/${started.body.job_id}`)).status).toBe(404);
    expect((await stranger.get(`/api/admin/jobs/${queueId}`)).status).toBe(404);
    expect((await stranger.get<JobsPage>('/api/admin/jobs')).body.jobs).toEqual([]);
    expect((await stranger.post(`/api/admin/jobs/${queueId}/cancel`)).status).toBe(404);
    expect((await alice.get('/api/admin/jobs')).status).toBe(403);
    expect(await admin.get('/api/admin/jobs?state=sleeping')).toMatchObject({ status: 422 });

    const cancelled = await admin.post<Job>(`/api/admin/jobs/${started.body.job_id}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, body: { state: 'cancelled', status: 'failed' } });
    expect(cancelled.body.error).toMatch(/cancelled by admin/);
    expect((await admin.get(`/api/admin/jobs/${queueId}`)).status).toBe(404);
    expect(await admin.post(`/api/admin/jobs/${started.body.job_id}/cancel`)).toMatchObject({
      status: 409,
      body: { code: 'job_not_cancellable' },
    });
  });

  it('retries a failed BullMQ job of the tenant (attempts reset, Location), not another tenant’s', async () => {
    const name = 'sessions.process';
    const queue = new Queue(name, { connection, prefix: team.env.QUEUE_PREFIX });
    const payload = { tenantId, userId: randomUUID(), sessionId: randomUUID() };
    const worker = new Worker(
      name,
      async () => {
        throw new Error('extractor crashed');
      },
      { connection, prefix: team.env.QUEUE_PREFIX },
    );
    try {
      const job = await queue.add(name, payload, { jobId: `e2e-${randomUUID()}`, attempts: 1 });
      const failed = await eventually(
        () => admin.get<Job>(`/api/admin/jobs/${job.id}`),
        (res) => res.body.state === 'failed',
      );
      expect(failed.body).toMatchObject({ name, status: 'failed', attempts: 1, error: 'extractor crashed' });
      await worker.close();

      expect(
        (await admin.get<JobsPage>('/api/admin/jobs?state=failed')).body.jobs.map((j) => j.id),
      ).toContain(job.id);
      expect((await stranger.post(`/api/admin/jobs/${job.id}/retry`)).status).toBe(404);
      const retried = await admin.post<Job>(`/api/admin/jobs/${job.id}/retry`);
      expect(retried.status).toBe(202);
      expect(retried.headers.get('location')).toBe(`/api/admin/jobs/${job.id}`);
      expect(retried.body).toMatchObject({ state: 'waiting', attempts: 0, status: 'queued' });
      expect(await admin.post(`/api/admin/jobs/${job.id}/retry`)).toMatchObject({
        status: 409,
        body: { code: 'job_not_failed' },
      });
      const audit = await admin.get<{ entries: { action: string }[] }>(`/api/admin/audit?target=${job.id}`);
      expect(audit.body.entries.map((e) => e.action)).toEqual(['job.retry']);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('counts only what the caller can see in stats, categories and tags', async () => {
    const store = (who: typeof alice, body: Record<string, unknown>) => who.post('/api/memories', body);
    await store(alice, {
      content: 'alice private one',
      category: 'decisions',
      tags: 'db,infra',
      importance: 0.9,
    });
    await store(alice, { content: 'alice private two', category: 'gotchas', tags: 'db', importance: 0.1 });
    await store(alice, {
      content: 'alice team note',
      category: 'runbooks',
      tags: 'ops',
      visibility: 'team',
      importance: 0.5,
    });
    await store(bob, { content: 'bob private', category: 'secrets-free', tags: 'bobonly', importance: 0.3 });

    const mine = await alice.get<Record<string, unknown>>('/api/stats');
    expect(mine.body).toMatchObject({
      total_memories: 3,
      by_category: { decisions: 1, gotchas: 1, runbooks: 1 },
      by_importance: { '0.0-0.2': 1, '0.2-0.4': 0, '0.4-0.6': 1, '0.6-0.8': 0, '0.8-1.0': 1 },
      sharing_stats: { shared_by_me: 0, shared_with_me: 0 },
    });
    expect((mine.body.recent_activity as { created: number }[]).reduce((n, d) => n + d.created, 0)).toBe(3);

    const bobs = await bob.get<Record<string, unknown>>('/api/stats');
    expect(bobs.body).toMatchObject({ total_memories: 2, by_category: { runbooks: 1, 'secrets-free': 1 } });
    expect(await bob.get('/api/categories')).toMatchObject({
      body: { categories: ['runbooks', 'secrets-free'], counts: { runbooks: 1, 'secrets-free': 1 } },
    });
    expect((await bob.get('/api/tags')).body).toEqual({
      tags: [
        { tag: 'bobonly', count: 1 },
        { tag: 'ops', count: 1 },
      ],
    });
    expect((await alice.get('/api/tags')).body).toMatchObject({
      tags: [{ tag: 'db', count: 2 }, expect.anything(), expect.anything()],
    });
    // An admin key counts what it may read (the team note): members' private memories stay theirs,
    // while the tenant's admin stats below count every row.
    expect((await admin.get<{ total_memories: number }>('/api/stats')).body.total_memories).toBe(1);

    const tenant = await admin.get<Record<string, unknown>>('/api/admin/stats');
    expect(tenant.body).toMatchObject({
      memories: { live: 4, deleted: 0 },
      users: { total: 3, disabled: 0, admins: 1 },
      keys: { active: 3 },
      queue: { outbox_pending: expect.any(Number), waiting: expect.any(Number), failed: expect.any(Number) },
    });
    expect((await stranger.get<{ memories: { live: number } }>('/api/admin/stats')).body.memories.live).toBe(
      0,
    );
    expect((await alice.get('/api/admin/stats')).status).toBe(403);
  });
});
