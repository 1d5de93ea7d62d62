import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { freePort } from './free-port';

/** The repository root: built entry points are started from its dist/. */
export const ROOT = resolve(__dirname, '../../../..');

export interface RunningProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Sends a signal and waits for exit; returns the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `npm run <script>`-equivalent built entry points directly with node (no npm wrapper in between). */
export function startNodeProcess(
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
): RunningProcess {
  const child = spawn(process.execPath, [resolve(ROOT, entry), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return {
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      // A child killed by a signal has exitCode null but signalCode set: it is gone all the same.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

export async function waitForHttp(url: string, timeoutMs = 60_000, proc?: RunningProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    if (proc && proc.child.exitCode !== null) {
      throw new Error(`process exited with ${proc.child.exitCode} before ${url} answered:\n${proc.output()}`);
    }
    try {
      const res = await fetch(url);
      if (res.ok) return;
      lastError = `status ${res.status}`;
    } catch (error) {
      lastError = String(error);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${url}: ${lastError}\n${proc?.output() ?? ''}`);
}

export interface ApiProcess extends RunningProcess {
  readonly url: string;
}

/** Where a started process listens; a restart passes the previous port so proxies keep their list. */
export interface StartOptions {
  readonly port?: number;
}

export async function startApiProcess(
  env: Record<string, string>,
  { port = 0 }: StartOptions = {},
): Promise<ApiProcess> {
  port ||= await freePort();
  const proc = startNodeProcess('dist/apps/api/src/main.js', {
    PORT: String(port),
    HOST: '127.0.0.1',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await readyOrStopped(proc, `${url}/health/ready`);
  return { ...proc, url };
}

export interface WorkerProcess extends RunningProcess {
  readonly healthUrl: string;
}

export async function startWorkerProcess(
  env: Record<string, string>,
  { port = 0 }: StartOptions = {},
): Promise<WorkerProcess> {
  port ||= await freePort();
  const proc = startNodeProcess('dist/apps/worker/src/main.js', {
    WORKER_HEALTH_PORT: String(port),
    WORKER_HEALTH_HOST: '127.0.0.1',
    ...env,
  });
  const healthUrl = `http://127.0.0.1:${port}`;
  await readyOrStopped(proc, `${healthUrl}/health/ready`);
  return { ...proc, healthUrl };
}

/** A process that never gets ready is killed, so it cannot hold its port or outlive the test. */
async function readyOrStopped(proc: RunningProcess, readyUrl: string): Promise<void> {
  try {
    await waitForHttp(readyUrl, 90_000, proc);
  } catch (error) {
    await proc.stop('SIGKILL');
    throw error;
  }
}
