import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { FakeVault } from '@app/testing';
import { runCli } from '../../apps/cli/src/cli';
import { teamFixture } from '../support/e2e-env';
import { withDb } from '../support/superuser-db';
import { ghToken, wholeDatabaseText } from '../support/secret-scan';
import { client } from '../support/http-client';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { queueText } from '../support/queue-text';
import { waitFor } from '../support/wait-for';

// Generated at run time: nothing secret-shaped is committed.
const PASSWORD = `S3cr3t-pa55`;
const DB_URL_SECRET = `the prod db is postgres://admin:${PASSWORD}@db:5432/app`;

interface JobBody {
  id: string;
  status: string;
  progress: {
    total: number | null;
    done: number;
    failed: number;
    scanned?: number;
    found?: number;
    migrated?: number;
  };
  error: string | null;
}

describe('secret memories with Vault (fake Vault API, built API and worker)', () => {
  const vault = new FakeVault();
  let team: ReturnType<typeof teamFixture>;
  let api: ApiProcess;
  let worker: WorkerProcess;

  beforeAll(async () => {
    const address = await vault.start();
    team = teamFixture({
      VAULT_ADDR: address,
      VAULT_TOKEN: vault.rootToken,
      VAULT_TIMEOUT_MS: '1000',
      SECRET_MIGRATION_BATCH_SIZE: '250',
      LOG_LEVEL: 'debug',
    });
    [api, worker] = await Promise.all([startApiProcess(team.env), startWorkerProcess(team.env)]);
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await vault.stop();
  });

  const tenantUsers = () =>
    withDb(async (db) => {
      const { rows } = await db.query<{ tenant_id: string; id: string; username: string }>(
        `SELECT u.tenant_id, u.id, u.username FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE t.slug = $1`,
        [team.tenant],
      );
      return Object.fromEntries(rows.map((r) => [r.username, r])) as Record<string, (typeof rows)[number]>;
    });

  it('keeps a pasted database password out of the row, the logs, the queue and sync; reveals it to its owner only', async () => {
    const alice = client(api.url, team.keys.alice);
    const stored = await alice.post<{ id: number }>('/api/memories', {
      content: DB_URL_SECRET,
      tags: 'infra',
    });
    expect(stored.status).toBe(200);
    const id = stored.body.id;

    // The worker embeds it (from the redacted text) like any other memory.
    await waitFor('the memory to be indexed', async () =>
      withDb(async (db) => {
        const { rows } = await db.query(
          `SELECT 1 FROM memory_index_state WHERE memory_id = $1 AND status = 'indexed'`,
          [id],
        );
        return rows.length > 0 ? true : undefined;
      }),
    );

    const row = await withDb(
      async (db) =>
        (
          await db.query<{
            content: string;
            is_sensitive: boolean;
            secret_ref: string;
            secret_version: number;
          }>(`SELECT content, is_sensitive, secret_ref, secret_version FROM memories WHERE id = $1`, [id])
        ).rows[0],
    );
    expect(row.content).toMatch(/^the prod db is .*\[REDACTED:[a-z0-9-]+\]/);
    expect(row.is_sensitive).toBe(true);
    const users = await tenantUsers();
    expect(row.secret_ref).toBe(`memory-service/${users.alice.tenant_id}/${users.alice.id}/mem-${id}`);
    expect(vault.kv.read(row.secret_ref, row.secret_version).body).toMatchObject({
      data: { data: { content: DB_URL_SECRET } },
    });

    // Lists and gets show the redacted text with the seed's hint; sync carries only the redacted text.
    const listed = await alice.get<{ memories: { id: number; content: string; is_sensitive: boolean }[] }>(
      '/api/memories?limit=100',
    );
    const item = listed.body.memories.find((m) => m.id === id);
    expect(item).toMatchObject({ is_sensitive: true });
    expect(item?.content).toMatch(
      /^the prod db is .*\[REDACTED:[a-z0-9-]+\].* \[SENSITIVE - use secret_get\(id=\d+\)\]$/,
    );
    expect(item?.content).not.toContain(PASSWORD);
    const synced = await alice.get('/api/memories/sync');
    expect(synced.status).toBe(200);
    expect(JSON.stringify(synced.body)).toContain('[REDACTED:');
    expect(JSON.stringify(synced.body)).not.toContain(PASSWORD);
    const recalled = await alice.post('/api/memories/recall', { context: 'prod db' });
    expect(JSON.stringify(recalled.body)).not.toContain(PASSWORD);

    // Nowhere at rest or in flight.
    expect(await wholeDatabaseText()).not.toContain(PASSWORD);
    expect(await queueText(team.env.QUEUE_PREFIX)).not.toContain(PASSWORD);
    expect(api.output() + worker.output()).not.toContain(PASSWORD);
    expect(api.output()).toContain('"url":"/api/memories"'); // requests were logged, so the check above means something

    // The owner with secrets:read gets it back (empty JSON body accepted) and an audit row is written.
    const revealed = await alice.request('POST', `/api/memories/${id}/secret`, '', {
      'content-type': 'application/json',
      'x-request-id': 'reveal-request-1',
    });
    expect(revealed.status).toBe(200);
    expect(revealed.headers.get('x-request-id')).toBe('reveal-request-1');
    expect(revealed.body).toEqual({ id, content: DB_URL_SECRET, category: 'facts', source: 'vault' });
    const audit = await withDb(
      async (db) =>
        (
          await db.query<{ actor_id: string; request_id: string }>(
            `SELECT actor_id, request_id FROM audit_log WHERE action = 'memory.secret.reveal' AND target_id = $1`,
            [String(id)],
          )
        ).rows,
    );
    expect(audit).toEqual([{ actor_id: users.alice.id, request_id: 'reveal-request-1' }]);

    // Another user: 404, as if it did not exist.
    const bob = client(api.url, team.keys.bob);
    const foreign = await bob.post(`/api/memories/${id}/secret`);
    expect(foreign.status).toBe(404);
    // A plain memory has no secret: its content comes back as it is (seed 002, whose client reads it).
    const plain = await alice.post<{ id: number }>('/api/memories', {
      content: 'the staging db is on port 5432',
      category: 'infra',
    });
    expect((await alice.post(`/api/memories/${plain.body.id}/secret`)).body).toEqual({
      id: plain.body.id,
      content: 'the staging db is on port 5432',
      category: 'infra',
      source: 'plain',
    });
  });

  it('refuses the reveal to a key without secrets:read', async () => {
    const admin = client(api.url, team.keys.admin);
    const users = await admin.get<{ users: { id: string; username: string }[] }>('/api/admin/users');
    const aliceId = users.body.users.find((u) => u.username === 'alice')?.id;
    const key = await admin.post<{ key: string }>(`/api/admin/users/${aliceId}/keys`, {
      scopes: ['memories:read', 'memories:write'],
    });
    const limited = client(api.url, key.body.key);
    const stored = await limited.post<{ id: number }>('/api/memories', {
      content: `deploy token: ${ghToken()}`,
    });
    expect(stored.status).toBe(200);
    const denied = await limited.post(`/api/memories/${stored.body.id}/secret`);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'forbidden' });
    // Refusals are audited too: this 403, and bob's 404 for alice's memory.
    const bob = client(api.url, team.keys.bob);
    expect((await bob.post(`/api/memories/${stored.body.id}/secret`)).status).toBe(404);
    const denials = await withDb((pg) =>
      pg
        .query<{ reason: string }>(
          `SELECT details->>'reason' AS reason FROM audit_log
            WHERE action = 'memory.secret.reveal.denied' AND target_id = $1 ORDER BY id`,
          [String(stored.body.id)],
        )
        .then((r) => r.rows.map((row) => row.reason)),
    );
    expect(denials).toEqual(['missing_scope', 'not_found']);
  });

  it('with Vault sealed: a secret-bearing write gets 503 + Retry-After and stores nothing; a plain write succeeds', async () => {
    const alice = client(api.url, team.keys.alice);
    const count = () =>
      withDb(
        async (db) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories`)).rows[0].n,
      );
    const before = await count();
    vault.faults.sealed = true;
    try {
      const refused = await alice.post('/api/memories', {
        content: `new db: postgres://app:${PASSWORD}x@db2/app`,
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.body).toMatchObject({ code: 'secret_store_unavailable' });
      const forced = await alice.post('/api/memories', { content: 'the vpn pin', force_sensitive: true });
      expect(forced.status).toBe(503);
      expect(await count()).toBe(before);

      const plain = await alice.post('/api/memories', { content: 'we deploy on Tuesdays' });
      expect(plain.status).toBe(200);
      expect(await count()).toBe(before + 1);
      // Readiness does not depend on Vault.
      expect((await fetch(`${api.url}/health/ready`)).status).toBe(200);
    } finally {
      vault.faults.sealed = false;
    }
    expect(await wholeDatabaseText()).not.toContain(`${PASSWORD}x`);
  });

  it('force_sensitive keeps the whole content as a secret; updates re-screen and point at a new version', async () => {
    const alice = client(api.url, team.keys.alice);
    const stored = await alice.post<{ id: number }>('/api/memories', {
      content: 'the office alarm code is 4471',
      force_sensitive: true,
    });
    expect(stored.status).toBe(200);
    const id = stored.body.id;
    expect((await alice.post(`/api/memories/${id}/secret`)).body).toMatchObject({
      content: 'the office alarm code is 4471',
    });

    const token = ghToken();
    expect((await alice.put(`/api/memories/${id}`, { content: `ci token ${token}` })).status).toBe(200);
    expect((await alice.post(`/api/memories/${id}/secret`)).body).toMatchObject({
      content: `ci token ${token}`,
    });
    expect(await wholeDatabaseText()).not.toContain(token);

    // Content without a secret: the row lets go of it, and the cleanup job deletes it from Vault.
    expect(
      (await alice.put(`/api/memories/${id}`, { content: 'alarm code rotated; ask facilities' })).status,
    ).toBe(200);
    expect((await alice.get(`/api/memories/${id}`)).body).toMatchObject({
      content: 'alarm code rotated; ask facilities',
      is_sensitive: false,
    });
    expect((await alice.post(`/api/memories/${id}/secret`)).body).toMatchObject({ source: 'plain' });
    const cleanup = await withDb(
      async (db) =>
        (await db.query(`SELECT 1 FROM secret_cleanup WHERE memory_id = $1 AND not_before <= now()`, [id]))
          .rows,
    );
    expect(cleanup).toHaveLength(1);
  });

  it('redacts secrets in tags, keywords and project too', async () => {
    const alice = client(api.url, team.keys.alice);
    const token = ghToken();
    const stored = await alice.post<{ id: number }>('/api/memories', {
      content: 'release checklist lives in the wiki',
      tags: `release,${token}`,
      expanded_keywords: `checklist ${token}`,
      project: 'web',
    });
    expect(stored.status).toBe(200);
    const got = await alice.get<{ tags: string; expanded_keywords: string }>(
      `/api/memories/${stored.body.id}`,
    );
    expect(got.body.tags).toMatch(/^release,\[REDACTED:[a-z0-9-]+\]$/);
    expect(got.body.expanded_keywords).toMatch(/^checklist \[REDACTED:[a-z0-9-]+\]$/);
    expect(await wholeDatabaseText()).not.toContain(token);
  });

  it('the admin migration moves all 300 planted secrets among 10,000 memories, reports progress, and moves none on a rerun', async () => {
    const users = await tenantUsers();
    const tenantId = users.alice.tenant_id;
    const planted = new Map<number, string>();
    await withDb(async (db) => {
      const values: string[] = [];
      for (let i = 0; i < 10_000; i++) {
        if (i % 33 === 0 && planted.size < 300) {
          const kind = planted.size % 3;
          const secret =
            kind === 0
              ? `postgres://svc${i}:${randomBytes(9).toString('base64url')}@db-${i}:5432/app`
              : kind === 1
                ? ghToken()
                : `${randomBytes(6).toString('hex')}-${randomBytes(12).toString('base64url')}`;
          const content = kind === 2 ? `my password is ${secret}` : `legacy note ${i}: ${secret}`;
          planted.set(i, content);
          values.push(content);
        } else {
          values.push(`legacy note ${i}: prefer small pull requests for module ${i % 97}`);
        }
      }
      await db.query(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
         SELECT $1, CASE WHEN n % 2 = 0 THEN $2::uuid ELSE $3::uuid END, c, sha256(convert_to(c || n, 'UTF8'))
           FROM unnest($4::text[]) WITH ORDINALITY AS v(c, n)`,
        [tenantId, users.alice.id, users.bob.id, values],
      );
    });
    expect(planted.size).toBe(300);
    const admin = client(api.url, team.keys.admin);
    const runJob = async (dryRun: boolean, onProgress?: (job: JobBody) => void): Promise<JobBody> => {
      const started = await admin.post<{ job_id: string }>('/api/admin/secrets/migrate', { dry_run: dryRun });
      expect(started.status).toBe(202);
      return waitFor(
        'the migration job to finish',
        async () => {
          const job = (await admin.get<JobBody>(`/api/admin/jobs/${started.body.job_id}`)).body;
          onProgress?.(job);
          return job.status === 'succeeded' || job.status === 'failed' ? job : undefined;
        },
        180_000,
        25,
      );
    };

    const dry = await runJob(true);
    expect(dry.status).toBe('succeeded');
    expect(dry.progress.found).toBe(300);
    expect(dry.progress.migrated).toBe(0);
    expect(await wholeDatabaseText()).toContain([...planted.values()][0]);

    // Slow Vault writes down so the run is long enough to watch.
    vault.faults.latencyMs = 20;
    const seen: JobBody[] = [];
    const done = await runJob(false, (job) => seen.push(job)).finally(() => (vault.faults.latencyMs = 0));
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    expect(done.progress.migrated).toBe(dry.progress.found);
    expect(done.progress.failed).toBe(0);
    const midway = seen.filter(
      (j) => j.status === 'running' && j.progress.done > 0 && j.progress.done < (j.progress.total ?? 0),
    );
    expect(midway.length).toBeGreaterThan(0);

    const text = await wholeDatabaseText();
    for (const content of planted.values()) expect(text).not.toContain(content.split(': ').pop() as string);
    const vaultKeys = [users.alice.id, users.bob.id].flatMap(
      (user) =>
        (vault.kv.list(`memory-service/${tenantId}/${user}`).body?.data as { keys?: string[] })?.keys ?? [],
    );
    expect(vaultKeys.length).toBeGreaterThanOrEqual(300 + 1);

    const again = await runJob(false);
    expect(again.status).toBe('succeeded');
    expect(again.progress).toMatchObject({ found: 0, migrated: 0 });

    // The seed's per-user route finds nothing left either.
    const own = await client(api.url, team.keys.alice).post('/api/memories/migrate-secrets');
    expect(own).toMatchObject({ status: 200, body: { migrated: 0 } });
  });

  it('the CLI runs the same job with a progress bar: a dry run counts, --apply moves', async () => {
    const users = await tenantUsers();
    const secrets = Array.from({ length: 5 }, () => ghToken());
    await withDb((db) =>
      db.query(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
         SELECT $1, $2, 'old ci note: ' || s, sha256(convert_to(s, 'UTF8')) FROM unnest($3::text[]) AS s`,
        [users.bob.tenant_id, users.bob.id, secrets],
      ),
    );
    const cli = async (args: string[]) => {
      let out = '';
      let err = '';
      await runCli([...args, '--tenant', team.tenant], {
        io: { out: (t) => void (out += t), err: (t) => void (err += t) },
        loadConfig: () => loadConfig({ DATABASE_URL: inject('databaseUrl') }),
      });
      return { out, err };
    };
    const dry = await cli(['secrets', 'migrate']);
    expect(dry.out).toMatch(/Dry run: 5 of \d+ memories hold secrets/);
    expect(dry.err).toMatch(
      /secret scan \[[^\]]*\] 100% \| \d+\/\d+ memories \| succeeded \| found 5, migrated 0/,
    );
    expect(await wholeDatabaseText()).toContain(secrets[0]);

    const applied = await cli(['secrets', 'migrate', '--apply']);
    expect(applied.out).toMatch(/Moved the secrets of 5 memories/);
    const text = await wholeDatabaseText();
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});

describe('secret memories with local encryption, and with no secret store (built API, embedded queue)', () => {
  it('encrypts in the row with MEMORY_ENCRYPTION_KEY and reveals with source "encrypted"', async () => {
    const team = teamFixture({ MEMORY_ENCRYPTION_KEY: 'correct horse battery staple 42' });
    delete (team.env as Record<string, string>).REDIS_URL;
    const api = await startApiProcess(team.env);
    try {
      const alice = client(api.url, team.keys.alice);
      const stored = await alice.post<{ id: number }>('/api/memories', { content: DB_URL_SECRET });
      expect(stored.status).toBe(200);
      const ref = await withDb(
        async (db) =>
          (
            await db.query<{ secret_ref: string }>(`SELECT secret_ref FROM memories WHERE id = $1`, [
              stored.body.id,
            ])
          ).rows[0].secret_ref,
      );
      expect(ref.startsWith('enc:v1:')).toBe(true);
      expect(await wholeDatabaseText()).not.toContain(PASSWORD);
      const revealed = await alice.post(`/api/memories/${stored.body.id}/secret`);
      expect(revealed.body).toEqual({
        id: stored.body.id,
        content: DB_URL_SECRET,
        category: 'facts',
        source: 'encrypted',
      });

      // An admin replacing the secret (private access on, with a reason) writes it under alice's
      // path, where her reveal reads it.
      const replaced = `the prod db is postgres://admin:${PASSWORD}-2@db:5432/app`;
      const admin = client(api.url, team.keys.admin);
      const allowed = await admin.request('PATCH', '/api/admin/settings', { admin_private_access: true });
      expect(allowed.status).toBe(200);
      const reason = { 'x-private-access-reason': 'rotating the leaked prod database password' };
      expect((await admin.put(`/api/memories/${stored.body.id}`, { content: replaced }, reason)).status).toBe(
        200,
      );
      expect((await alice.post(`/api/memories/${stored.body.id}/secret`)).body).toMatchObject({
        content: replaced,
        source: 'encrypted',
      });

      // A row stored in clear before detection existed: the seed's per-user migration moves it.
      const legacy = await withDb(async (db) => {
        const { rows } = await db.query<{ id: string }>(
          `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
           SELECT u.tenant_id, u.id, $2, sha256(convert_to($2, 'UTF8'))
             FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE t.slug = $1 AND u.username = 'alice'
           RETURNING id`,
          [team.tenant, `legacy: ${DB_URL_SECRET}`],
        );
        return Number(rows[0].id);
      });
      expect((await alice.post('/api/memories/migrate-secrets')).body).toEqual({ migrated: 1 });
      expect((await alice.post('/api/memories/migrate-secrets')).body).toEqual({ migrated: 0 });
      expect(await wholeDatabaseText()).not.toContain(PASSWORD);
      expect((await alice.post(`/api/memories/${legacy}/secret`)).body).toEqual({
        id: legacy,
        content: `legacy: ${DB_URL_SECRET}`,
        category: expect.any(String),
        source: 'encrypted',
      });
    } finally {
      await api.stop();
    }
  });

  it('refuses secret-bearing writes with a 503 that says what to configure, and stores plain ones', async () => {
    const team = teamFixture();
    delete (team.env as Record<string, string>).REDIS_URL;
    const api = await startApiProcess(team.env);
    try {
      const alice = client(api.url, team.keys.alice);
      const refused = await alice.post<{ detail: string }>('/api/memories', { content: DB_URL_SECRET });
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toMatch(/VAULT_ADDR.*MEMORY_ENCRYPTION_KEY/s);
      expect(refused.headers.get('retry-after')).toBeNull();
      expect((await alice.post('/api/memories', { content: 'plain facts only' })).status).toBe(200);
      expect(await wholeDatabaseText()).not.toContain(PASSWORD);
    } finally {
      await api.stop();
    }
  });
});
