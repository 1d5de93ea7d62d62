import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '@app/config';
import { type TenancyUseCases } from '@app/tenancy';
import { createTenancyUseCases } from '@app/tenancy/testing';
import { FaultProxy, openTestDatabase, type TestDatabase } from '@app/testing';
import { runCli } from '../src/cli';
import { CliContext } from '../src/cli-context';

interface Run {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in-process against the integration database, as `npm run cli -- …` would. */
async function cli(
  args: string[],
  env: Record<string, string> = { DATABASE_URL: inject('databaseUrl') },
): Promise<Run> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    io: { out: (t) => void (out += t), err: (t) => void (err += t) },
    loadConfig: () => loadConfig(env),
  });
  return { code, out, err };
}

describe('CLI', () => {
  let db: TestDatabase;
  let cases: TenancyUseCases;
  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'));
    cases = createTenancyUseCases(db.tx, { ttlMs: 0 });
  });
  afterAll(async () => db.close());

  const tenant = () => `cli-${randomBytes(4).toString('hex')}`;

  it('reports that the database is up to date after the test setup migrated it', async () => {
    const run = await cli(['migrate']);
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toContain('up to date');
  });

  it('creates users and keys that authenticate, lists them without secrets, and revokes them', async () => {
    const t = tenant();
    const created = await cli(['users', 'create', 'alice', '--tenant', t, '--display-name', 'Alice A.']);
    expect(created.code).toBe(0);
    expect(created.out).toContain('Created user "alice"');

    const keyRun = await cli([
      '--json',
      'keys',
      'create',
      '--user',
      'alice',
      '--scopes',
      'memories:read,memories:write',
      '--name',
      'ci bot',
      '--tenant',
      t,
    ]);
    expect(keyRun.code).toBe(0);
    const key = JSON.parse(keyRun.out) as {
      id: string;
      key: string;
      scopes: string[];
      prefix: string;
      name: string;
    };
    expect(key).toMatchObject({ scopes: ['memories:read', 'memories:write'], name: 'ci bot' });
    await expect(cases.authenticateApiKey.execute(key.key)).resolves.toMatchObject({
      username: 'alice',
      tenantSlug: t,
      scopes: ['memories:read', 'memories:write'],
    });

    const human = await cli(['keys', 'create', '--user', 'alice', '--tenant', t]);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/\nmsk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}\n/);

    const users = await cli(['users', 'list', '--tenant', t, '--json']);
    expect(JSON.parse(users.out).users).toEqual([
      expect.objectContaining({ username: 'alice', display_name: 'Alice A.', is_admin: false }),
    ]);

    const list = await cli(['keys', 'list', '--user', 'alice', '--tenant', t]);
    expect(list.code).toBe(0);
    expect(list.out).toContain(key.prefix);
    expect(list.out).not.toContain(key.key);
    expect(list.out.trim().split('\n')).toHaveLength(3); // header + 2 keys

    const revoked = await cli(['keys', 'revoke', key.id, '--tenant', t]);
    expect(revoked.code).toBe(0);
    expect(revoked.out).toContain(`Revoked key ${key.id}`);
    await expect(cases.authenticateApiKey.execute(key.key)).rejects.toMatchObject({
      code: 'unauthenticated',
    });

    const audit = await db.tx.asSystem(
      async (tx) =>
        (
          await tx.query<{ action: string; actor_id: string | null; details: { via?: string } }>(
            `SELECT a.action, a.actor_id, a.details FROM audit_log a JOIN tenants t ON t.id = a.tenant_id
            WHERE t.slug = $1 ORDER BY a.id`,
            [t],
          )
        ).rows,
    );
    expect(audit.map((a) => a.action)).toEqual([
      'user.create',
      'api_key.create',
      'api_key.create',
      'user.list',
      'api_key.list',
      'api_key.revoke',
    ]);
    expect(audit.every((a) => a.actor_id === null && a.details.via === 'cli')).toBe(true);
  });

  it('exits non-zero with a clear message on bad input', async () => {
    const t = tenant();
    expect((await cli(['users', 'create', 'bob', '--tenant', t])).code).toBe(0);

    const attempts: [string[], number, RegExp][] = [
      [['users', 'create', 'bob', '--tenant', t], 1, /User "bob" already exists/],
      [['users', 'create', 'bad name!', '--tenant', t], 2, /username: must be 1-64 letters/],
      [['users', 'create', 'x', '--tenant', 'Not A Slug'], 2, /tenant "Not A Slug" must be/],
      [['keys', 'create', '--tenant', t], 2, /required option '--user <username>' not specified/],
      [
        ['keys', 'create', '--user', 'bob', '--scopes', 'memories:read,root', '--tenant', t],
        2,
        /scopes\.1: must be one of/,
      ],
      [
        ['keys', 'create', '--user', 'bob', '--expires-at', 'tomorrow', '--tenant', t],
        2,
        /expires_at: must be an ISO-8601/,
      ],
      [
        ['keys', 'create', '--user', 'bob', '--expires-at', '2001-01-01T00:00:00Z', '--tenant', t],
        2,
        /in the future/,
      ],
      [
        ['keys', 'create', '--user', 'bob', '--scopes', 'admin', '--tenant', t],
        2,
        /only be granted to an admin user/,
      ],
      [['keys', 'create', '--user', 'nobody', '--tenant', t], 1, /User "nobody" not found/],
      [['keys', 'list', '--tenant', 'no-such-tenant-x'], 2, /Tenant "no-such-tenant-x" not found/],
      [['keys', 'revoke', '00000000-0000-4000-8000-000000000000', '--tenant', t], 1, /not found/],
      [['keys', 'frobnicate'], 2, /unknown command 'frobnicate'/],
      [[], 2, /Usage: memory-cli/],
    ];
    for (const [args, code, message] of attempts) {
      const run = await cli(args);
      expect({ args, code: run.code }).toEqual({ args, code });
      expect(run.err + (args.length === 0 ? run.out : '')).toMatch(message);
    }
  });

  it('explains that it needs DATABASE_URL and reports invalid configuration', async () => {
    const missing = await cli(['users', 'list'], {});
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('DATABASE_URL is not set');

    const invalid = await cli(['users', 'list'], { DATABASE_URL: 'mysql://nope' });
    expect(invalid.code).toBe(1);
    expect(invalid.err).toContain('DATABASE_URL: must start with postgres://');
  });

  it('fails within the statement timeout plus a margin when Postgres stops answering, as the servers do', async () => {
    const url = inject('databaseUrl');
    const proxy = await FaultProxy.start({ target: new URL(url).host });
    let err = '';
    const context = new CliContext({ out: () => undefined, err: (t) => void (err += t) }, () =>
      loadConfig({ DATABASE_URL: proxy.rewrite(url), DATABASE_STATEMENT_TIMEOUT_MS: '1000' }),
    );
    try {
      // Connected first; then the link goes silent under the command's statements.
      await context.dataSource();
      proxy.set({ mode: 'blackhole' });
      const started = Date.now();
      const code = await runCli(['users', 'list', '--tenant', tenant()], { context });
      expect(Date.now() - started).toBeLessThan(1_000 + 3_000);
      expect(code).toBe(1);
      expect(err).toMatch(/^error: .*(unavailable|answer)/i);
    } finally {
      proxy.heal();
      await proxy.close();
    }
  });
});
