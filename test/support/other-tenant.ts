import { expect, inject } from 'vitest';
import { loadConfig } from '@app/config';
import { runCli } from '../../apps/cli/src/cli';

/**
 * Creates an admin with a key in another tenant of the same database, through the CLI; returns the
 * key. `scopes` is the CLI's comma-separated list (an admin that also acts as a member adds theirs).
 */
export async function adminKeyInOtherTenant(tenant: string, scopes = 'admin'): Promise<string> {
  const env = { DATABASE_URL: inject('databaseUrl') };
  const io = { out: () => undefined, err: () => undefined };
  let out = '';
  await runCli(['users', 'create', 'root', '--admin', '--tenant', tenant], {
    io,
    loadConfig: () => loadConfig(env),
  });
  const code = await runCli(
    ['--json', 'keys', 'create', '--user', 'root', '--scopes', scopes, '--tenant', tenant],
    { io: { out: (t) => void (out += t), err: () => undefined }, loadConfig: () => loadConfig(env) },
  );
  expect(code).toBe(0);
  return (JSON.parse(out) as { key: string }).key;
}
