import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import type { ServiceOptions } from './bench-options';
import { serviceEnvironment } from './service-stack';

/** A built API or worker running as its own process, the way `npm start` runs it. */
interface ServiceProcess {
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export interface ProcessStack {
  readonly apiUrl: string;
  /** Every API process's base URL (the first is `apiUrl`). */
  readonly apiUrls: readonly string[];
  /** Each API process's id (for reading its CPU time); the first is `apiPid`. */
  readonly apiPids: readonly number[];
  readonly apiPid: number;
  /** The worker's process id; 0 when started without one. */
  readonly workerPid: number;
  /** The worker's health and metrics server (`/metrics`); null when started without one. */
  readonly workerUrl: string | null;
  stop(): Promise<void>;
}

/** dist/bench/harness → dist/apps/… (the bench runs from the build, as the services do). */
const DIST = resolve(__dirname, '../..');

/**
 * The API and the worker as separate processes over the benchmark database: what a user's client
 * meets, with the bench's own load generator and floor out of the service's event loop.
 */
export async function startServiceProcesses(options: {
  readonly services: ServiceOptions;
  readonly databaseUrl: string;
  readonly queuePrefix: string;
  /** Write a V8 CPU profile of each process into this directory (`--profile`). */
  readonly profileDir?: string;
  /** API processes behind one worker (default 1), each on its own port. */
  readonly apiProcesses?: number;
  /** False: the API alone (the worker would embed what a write benchmark stores, on the same cores). */
  readonly withWorker?: boolean;
}): Promise<ProcessStack> {
  const nodeArgs = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(options.profileDir)}`] : [];
  const workerHealth = await freePort();
  const apis: { url: string; proc: ServiceProcess }[] = [];
  for (let i = 0; i < (options.apiProcesses ?? 1); i++) {
    const port = await freePort();
    const env = serviceEnvironment(options, { api: port, workerHealth });
    apis.push({ url: `http://127.0.0.1:${port}`, proc: startProcess('apps/api/src/main.js', env, nodeArgs) });
  }
  const worker =
    options.withWorker === false
      ? null
      : startProcess(
          'apps/worker/src/main.js',
          serviceEnvironment(options, { api: 0, workerHealth }),
          nodeArgs,
        );
  const stop = async () => {
    await Promise.all([...apis.map((a) => a.proc.stop()), worker?.stop()]);
  };
  try {
    // One at a time: the first runs the migrations, the others find them done.
    for (const api of apis) await waitForReady(`${api.url}/health/ready`, api.proc);
  } catch (error) {
    await stop();
    throw error;
  }
  const apiPids = apis.map((a) => a.proc.child.pid as number);
  return {
    apiUrl: apis[0].url,
    apiUrls: apis.map((a) => a.url),
    apiPids,
    apiPid: apiPids[0],
    workerPid: worker?.child.pid ?? 0,
    workerUrl: worker ? `http://127.0.0.1:${workerHealth}` : null,
    stop,
  };
}

function startProcess(entry: string, env: Record<string, string>, nodeArgs: string[]): ServiceProcess {
  const child = spawn(process.execPath, [...nodeArgs, resolve(DIST, entry)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

async function waitForReady(url: string, proc: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null)
      throw new Error(`the API exited before it was ready:\n${proc.output()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the API was not ready within ${timeoutMs} ms:\n${proc.output()}`);
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}
