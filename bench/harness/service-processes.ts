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
  /** The API's process id, for reading its CPU time. */
  readonly apiPid: number;
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
  /** False: the API alone (the worker would embed what a write benchmark stores, on the same cores). */
  readonly withWorker?: boolean;
}): Promise<ProcessStack> {
  const port = await freePort();
  const env = serviceEnvironment(options, { api: port, workerHealth: await freePort() });

  const nodeArgs = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(options.profileDir)}`] : [];
  const api = startProcess('apps/api/src/main.js', env, nodeArgs);
  const worker = options.withWorker === false ? null : startProcess('apps/worker/src/main.js', env, nodeArgs);
  const stop = async () => {
    await Promise.all([api.stop(), worker?.stop()]);
  };
  const apiUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForReady(`${apiUrl}/health/ready`, api);
  } catch (error) {
    await stop();
    throw error;
  }
  return { apiUrl, apiPid: api.child.pid as number, stop };
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
