import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { loadConfig } from '@app/config';
import { TenancyErrorCode, type TenancyUseCases } from '@app/tenancy';
import { createTenancyUseCases } from '@app/tenancy/testing';
import { openTestDatabase, type TestDatabase } from '@app/testing';
import { runCli } from '../src/cli';

const prefix = `qcli${randomBytes(3).toString('hex')}`;
const env = () => ({
  DATABASE_URL: inject('databaseUrl'),
  REDIS_URL: inject('redisUrl'),
  QUEUE_PREFIX: prefix,
});

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    io: { out: (t) => void (out += t), err: (t) => void (err += t) },
    loadConfig: () => loadConfig(env()),
  });
  return { code, out, err };
}

describe('CLI: keys rotate/revoke by prefix, users disable, audit, jobs', () => {
  let db: TestDatabase;
  let cases: TenancyUseCases;
  const tenant = `cli-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'));
    cases = createTenancyUseCases(db.tx, { ttlMs: 0 });
    expect((await cli(['users', 'create', 'erin', '--tenant', tenant])).code).toBe(0);
  });
  afterAll(async () => db.close());

  it('rotates a key, revokes by prefix, disables and enables a user, and shows it all in the audit log', async () => {
    const created = JSON.parse(
      (await cli(['--json', 'keys', 'create', '--user', 'erin', '--tenant', tenant])).out,
    );
    const rotated = await cli(['--json', 'keys', 'rotate', created.prefix, '--tenant', tenant]);
    expect(rotated.code).toBe(0);
    const body = JSON.parse(rotated.out);
    expect(body.previous).toMatchObject({ id: created.id, replaced_by: body.id });
    await expect(cases.authenticateApiKey.execute(created.key)).resolves.toMatchObject({ username: 'erin' });

    expect((await cli(['keys', 'revoke', body.prefix, '--tenant', tenant])).out).toContain('Revoked key');
    await expect(cases.authenticateApiKey.execute(body.key)).rejects.toMatchObject({
      code: TenancyErrorCode.Unauthenticated,
    });

    expect((await cli(['users', 'disable', 'erin', '--tenant', tenant])).out).toContain(
      'Disabled user "erin"',
    );
    await expect(cases.authenticateApiKey.execute(created.key)).rejects.toMatchObject({
      message: 'The user of this API key is disabled',
    });
    expect((await cli(['users', 'enable', 'erin', '--tenant', tenant])).code).toBe(0);
    expect((await cli(['users', 'delete', 'erin', '--tenant', tenant])).code).toBe(2);

    const audit = await cli(['audit', '--action', 'api_key.*', '--limit', '2', '--tenant', tenant]);
    expect(audit.code).toBe(0);
    expect(audit.out.split('\n')[0]).toMatch(/^TIME\s+ACTOR\s+ACTION/);
    expect(audit.out).toContain('api_key.revoke');
    expect(audit.out).toContain('(cli)');
    expect(audit.out).toMatch(/More rows: --cursor \S+/);
    const json = JSON.parse((await cli(['--json', 'audit', '--actor', 'erin', '--tenant', tenant])).out);
    expect(json).toEqual({ entries: [], next_cursor: null });
    expect((await cli(['audit', '--since', 'last tuesday', '--tenant', tenant])).code).toBe(2);
  });

  it('lists a failed job of the tenant and retries it; another tenant does not see it', async () => {
    const tenantId = (
      await db.tx.asSystem((tx) =>
        tx.query<{ id: string }>(`SELECT id FROM tenants WHERE slug = $1`, [tenant]),
      )
    ).rows[0].id;
    const name = 'sessions.extract';
    const connection = { url: inject('redisUrl') };
    const queue = new Queue(name, { connection, prefix });
    const worker = new Worker(name, async () => Promise.reject(new Error('model offline')), {
      connection,
      prefix,
    });
    try {
      const job = await queue.add(
        name,
        { tenantId, userId: randomUUID(), sessionId: randomUUID(), keyId: randomUUID() },
        { jobId: `cli-${randomUUID()}`, attempts: 1 },
      );
      for (let i = 0; i < 100 && !(await job.isFailed()); i++) await new Promise((r) => setTimeout(r, 50));
      await worker.close();

      const list = await cli(['jobs', 'list', '--state', 'failed', '--tenant', tenant]);
      expect(list.code).toBe(0);
      expect(list.out).toContain(job.id!);
      expect(list.out).toContain('model offline');
      const elsewhere = `${tenant}-other`;
      expect((await cli(['users', 'create', 'root', '--tenant', elsewhere])).code).toBe(0);
      const other = await cli(['--json', 'jobs', 'list', '--tenant', elsewhere]);
      expect(other).toMatchObject({ code: 0 });
      expect(JSON.parse(other.out)).toEqual({ jobs: [], next_cursor: null });
      expect((await cli(['jobs', 'retry', job.id!, '--tenant', elsewhere])).err).toContain('not found');

      const retried = await cli(['--json', 'jobs', 'retry', job.id!, '--tenant', tenant]);
      expect(retried.code).toBe(0);
      expect(JSON.parse(retried.out)).toMatchObject({ id: job.id, state: 'waiting', attempts: 0 });
      const cancelled = await cli(['jobs', 'cancel', job.id!, '--tenant', tenant]);
      expect(cancelled.out).toContain('Cancelled');
      expect((await cli(['jobs', 'retry', job.id!, '--tenant', tenant])).code).toBe(1);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
