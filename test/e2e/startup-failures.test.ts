import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { freePort, startNodeProcess } from '../support/processes';

/** Runs a built entry point to its exit; its output lines (stdout and stderr) and exit code. */
async function runToExit(entry: string, env: Record<string, string>) {
  const proc = startNodeProcess(entry, { LOG_LEVEL: 'info', PORT: String(await freePort()), ...env });
  const [code] = (await once(proc.child, 'exit')) as [number | null];
  const lines = proc
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '');
  return { code, lines };
}

const API = 'dist/apps/api/src/main.js';
const WORKER = 'dist/apps/worker/src/main.js';

describe('a dependency that does not answer at start: one line naming it, exit code 1', () => {
  it.each([
    ['Postgres', (port: number) => ({ DATABASE_URL: `postgres://memsvc:secret@127.0.0.1:${port}/memsvc` })],
    ['Vault', (port: number) => ({ VAULT_ADDR: `http://127.0.0.1:${port}`, VAULT_TOKEN: 'root' })],
  ])('API in server mode: %s on a closed port', async (name, settings) => {
    const port = await freePort();
    const { code, lines } = await runToExit(API, { ...teamFixture().env, ...settings(port) });
    expect(code).toBe(1);
    expect(lines).toEqual([`cannot reach ${name} at 127.0.0.1:${port}: connection refused`]);
  });

  it('worker: Redis on a closed port (the worker has nothing to do without it)', async () => {
    const port = await freePort();
    const { code, lines } = await runToExit(WORKER, {
      ...teamFixture().env,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      WORKER_HEALTH_PORT: '0',
    });
    expect(code).toBe(1);
    expect(lines).toEqual([`cannot reach Redis at 127.0.0.1:${port}: connection refused`]);
  });

  it('worker: Postgres that refuses the credentials (the password never printed)', async () => {
    const { code, lines } = await runToExit(WORKER, {
      ...teamFixture().env,
      DATABASE_URL: 'postgres://no_such_role:secret-password@127.0.0.1:5432/postgres',
      WORKER_HEALTH_PORT: '0',
    });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Postgres at 127\.0\.0\.1:5432 refused the connection: .*no_such_role/);
    expect(lines[0]).not.toContain('secret-password');
  });
});
