import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './processes';
import { waitFor } from './wait-for';

/** A redis-server of the test's own, so it can be stopped and started without disturbing anyone else. */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async create(): Promise<PrivateRedis> {
    return new PrivateRedis(await freePort());
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    await waitFor(`redis-server on ${this.port}`, () => {
      if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
      return output.includes('Ready to accept connections') ? true : undefined;
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}
