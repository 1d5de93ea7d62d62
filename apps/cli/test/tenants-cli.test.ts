import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { openTestDatabase, type TestDatabase } from '@app/testing';
import { runCli } from '../src/cli';

/** Runs the CLI in-process against the integration database, as `npm run cli -- …` would. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    io: { out: (t) => void (out += t), err: (t) => void (err += t) },
    loadConfig: () => loadConfig({ DATABASE_URL: inject('databaseUrl') }),
  });
  return { code, out, err };
}

describe('CLI tenants settings', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'));
  });
  afterAll(async () => db.close());

  const stored = async (slug: string) =>
    (await db.dataSource.query(`SELECT team_session_visibility AS on FROM tenants WHERE slug = $1`, [
      slug,
    ])) as [{ on: boolean }];

  it('shows the settings, turns team session visibility on and off, and audits each change', async () => {
    const tenant = `cli-${randomBytes(4).toString('hex')}`;
    expect((await cli(['users', 'create', 'root', '--admin', '--tenant', tenant])).code).toBe(0);

    expect(await cli(['tenants', 'settings', '--tenant', tenant])).toMatchObject({
      code: 0,
      out: `Tenant "${tenant}": team session visibility off, admin private access off, capture branch scope on\n`,
    });
    const on = await cli(['--json', 'tenants', 'settings', '--team-sessions', 'on', '--tenant', tenant]);
    expect(on.code).toBe(0);
    expect(JSON.parse(on.out)).toEqual({
      team_session_visibility: true,
      admin_private_access: false,
      review_team_memories: false,
      proposal_auto_accept_hours: null,
      capture_branch_scope: true,
    });
    expect(await stored(tenant)).toEqual([{ on: true }]);
    expect((await cli(['tenants', 'settings', '--team-sessions', 'off', '--tenant', tenant])).out).toContain(
      'team session visibility off',
    );
    expect(await stored(tenant)).toEqual([{ on: false }]);
    const admins = await cli(['tenants', 'settings', '--admin-private-access', 'on', '--tenant', tenant]);
    expect(admins.out).toBe(
      `Tenant "${tenant}": team session visibility off, admin private access on, capture branch scope on\n`,
    );

    const audit = (await db.dataSource.query(
      `SELECT a.action, a.actor_id, a.details FROM audit_log a JOIN tenants t ON t.id = a.tenant_id
        WHERE t.slug = $1 AND a.action = 'tenant.settings.update' ORDER BY a.id`,
      [tenant],
    )) as Array<{ action: string; actor_id: string | null; details: Record<string, unknown> }>;
    expect(audit.map((row) => row.details)).toEqual([
      { team_session_visibility: true, via: 'cli' },
      { team_session_visibility: false, via: 'cli' },
      { admin_private_access: true, via: 'cli' },
    ]);
    expect(audit.every((row) => row.actor_id === null)).toBe(true);
  });

  it('refuses a value other than on or off, and an unknown tenant, with a usage exit code', async () => {
    const tenant = `cli-${randomBytes(4).toString('hex')}`;
    await cli(['users', 'create', 'root', '--tenant', tenant]);
    const bad = await cli(['tenants', 'settings', '--team-sessions', 'maybe', '--tenant', tenant]);
    expect(bad).toMatchObject({ code: 2, err: 'error: --team-sessions must be on or off\n' });
    expect(await stored(tenant)).toEqual([{ on: false }]);
    const unknown = await cli(['tenants', 'settings', '--tenant', `nope-${randomBytes(4).toString('hex')}`]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('not found');
  });
});
