import { once } from 'node:events';
import { freePort } from './free-port';
import { startApiProcess, startWorkerProcess, waitForHttp, type RunningProcess } from './processes';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy';

export type MemberKind = 'api' | 'worker';

/** One API or worker slot: a port that outlives the processes started on it. */
export interface HarnessMember {
  readonly kind: MemberKind;
  readonly index: number;
  readonly port: number;
  /** The API's base URL, or the worker's health server URL. */
  readonly url: string;
  /** The process now running in this slot, if any. */
  readonly process: RunningProcess | undefined;
  /** How many processes this slot has started. */
  readonly starts: number;
  /** The output of every process this slot started, oldest first. */
  output(): string;
}

export interface ProcessHarnessOptions {
  readonly apis: number;
  readonly workers: number;
  /** Env of every process (database, Redis, keys). */
  readonly env: Record<string, string>;
  readonly apiEnv?: Record<string, string>;
  readonly workerEnv?: Record<string, string>;
  /** How often the proxy polls each API's /health/ready (default 200 ms). */
  readonly readinessIntervalMs?: number;
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

class Member implements HarnessMember {
  process: RunningProcess | undefined;
  starts = 0;
  /** Set while the harness is the one stopping the process, so its exit is not a crash. */
  stopping = false;
  private readonly outputs: Array<() => string> = [];

  constructor(
    readonly kind: MemberKind,
    readonly index: number,
    readonly port: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  output(): string {
    return this.outputs.map((out) => out()).join('\n');
  }

  started(proc: RunningProcess): void {
    this.process = proc;
    this.starts++;
    this.outputs.push(proc.output);
  }
}

/**
 * N built API processes behind a readiness-aware round-robin proxy (see startRoundRobinProxy) and
 * M worker processes, each in a slot with a fixed port. A test sends SIGTERM or SIGKILL to any of
 * them and starts it again in the same slot, so the proxy's backend list never changes — like a
 * pod replaced behind a Service.
 *
 * The APIs get SHUTDOWN_DELAY_MS of five readiness polls unless the test sets it: on Kubernetes the
 * preStop sleep gives endpoint removal that time; here the proxy's poll must see readiness fail
 * before the listener closes.
 */
export class ProcessHarness {
  /** Processes that exited without the harness stopping them. */
  readonly crashes: string[] = [];

  private constructor(
    readonly proxy: RoundRobinProxy,
    readonly apis: readonly HarnessMember[],
    readonly workers: readonly HarnessMember[],
    private readonly apiEnv: Record<string, string>,
    private readonly workerEnv: Record<string, string>,
  ) {}

  static async start(options: ProcessHarnessOptions): Promise<ProcessHarness> {
    const intervalMs = options.readinessIntervalMs ?? 200;
    const apiEnv = {
      SHUTDOWN_DELAY_MS: String(5 * intervalMs),
      ...options.env,
      ...options.apiEnv,
    };
    const workerEnv = { ...options.env, ...options.workerEnv };
    const slots = async (kind: MemberKind, n: number) =>
      Promise.all(Array.from({ length: n }, async (_, i) => new Member(kind, i, await freePort())));
    const apis = await slots('api', options.apis);
    const workers = await slots('worker', options.workers);
    const proxy = await startRoundRobinProxy(
      apis.map((api) => api.url),
      { readinessPath: '/health/ready', readinessIntervalMs: intervalMs },
    );
    const harness = new ProcessHarness(proxy, apis, workers, apiEnv, workerEnv);
    try {
      await Promise.all([...apis, ...workers].map((member) => harness.start(member)));
    } catch (error) {
      await harness.close();
      throw error;
    }
    return harness;
  }

  /**
   * Sends `signal` to the member's process and waits for it to exit. SIGTERM lets it drain first
   * (readiness fails, in-flight work finishes); SIGKILL ends it mid-request.
   */
  async signal(member: HarnessMember, signal: 'SIGTERM' | 'SIGKILL'): Promise<ExitStatus> {
    const slot = this.slot(member);
    const child = slot.process?.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${slot.kind} ${slot.index} is not running`);
    }
    slot.stopping = true;
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    child.kill(signal);
    const [code, exitSignal] = await exited;
    slot.process = undefined;
    slot.stopping = false;
    return { code, signal: exitSignal };
  }

  /**
   * Starts a process in the member's slot (same port) and waits until it is ready; for an API,
   * also until the proxy has it back in rotation.
   */
  async start(member: HarnessMember): Promise<void> {
    const slot = this.slot(member);
    if (slot.process) throw new Error(`${slot.kind} ${slot.index} is already running`);
    const proc =
      slot.kind === 'api'
        ? await startApiProcess(this.apiEnv, { port: slot.port })
        : await startWorkerProcess(this.workerEnv, { port: slot.port });
    slot.started(proc);
    proc.child.once('exit', (code, signal) => {
      if (!slot.stopping)
        this.crashes.push(`${slot.kind} ${slot.index} exited (${code ?? signal}):\n${proc.output()}`);
      if (slot.process === proc) slot.process = undefined;
    });
    if (slot.kind === 'api') await this.proxy.waitForRotation(slot.index, true);
  }

  /** Stops the member with `signal`, starts it again on the same port and waits until it is ready. */
  async restart(member: HarnessMember, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<ExitStatus> {
    const exit = await this.signal(member, signal);
    await this.start(member);
    return exit;
  }

  /** Waits until the member's /health/ready answers 200 (for an API, as the proxy sees it). */
  async waitReady(member: HarnessMember, timeoutMs = 60_000): Promise<void> {
    const slot = this.slot(member);
    if (slot.kind === 'api') await this.proxy.waitForRotation(slot.index, true, timeoutMs);
    else await waitForHttp(`${slot.url}/health/ready`, timeoutMs, slot.process);
  }

  /** Kills what is still running and closes the proxy. */
  async close(): Promise<void> {
    const running = [...this.apis, ...this.workers].filter((member) => member.process);
    await Promise.all(running.map((member) => this.signal(member, 'SIGKILL')));
    await this.proxy.close();
  }

  private slot(member: HarnessMember): Member {
    const list = member.kind === 'api' ? this.apis : this.workers;
    const slot = list[member.index];
    if (!(slot instanceof Member) || slot !== member) throw new Error('not a member of this harness');
    return slot;
  }
}
