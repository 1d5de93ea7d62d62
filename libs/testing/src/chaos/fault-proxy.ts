import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * What the link does to the bytes that cross it. One mode at a time; `set` switches at run time and
 * applies to existing and new connections alike.
 * - `pass`: bytes go through untouched.
 * - `latency`: every chunk waits `latencyMs` ± `jitterMs` (uniform) in either direction; order is kept.
 * - `blackhole`: connections are accepted and kept open, nothing is forwarded or answered. Bytes sent
 *   meanwhile are held, as TCP retransmission would, and flow again once the link heals.
 * - `reset`: once `afterBytes` more bytes (both directions together) have crossed a connection, both of
 *   its sockets are destroyed with a TCP RST.
 * - `bandwidth`: each direction of each connection carries at most `bytesPerSecond`.
 * - `half-open`: the `stopped` direction holds its bytes while the other keeps flowing.
 */
export type FaultMode =
  | { readonly mode: 'pass' }
  | { readonly mode: 'latency'; readonly latencyMs: number; readonly jitterMs?: number }
  | { readonly mode: 'blackhole' }
  | { readonly mode: 'reset'; readonly afterBytes: number }
  | { readonly mode: 'bandwidth'; readonly bytesPerSecond: number }
  | { readonly mode: 'half-open'; readonly stopped: Direction };

/** `upstream` carries what the client sends to the target; `downstream` the target's answers. */
export type Direction = 'upstream' | 'downstream';

export interface FaultProxyOptions {
  /** `host:port` of the service behind the proxy. */
  readonly target: string;
  /** Port to listen on (0, the default: a free one). */
  readonly port?: number;
}

export interface FaultProxyStats {
  /** Connections accepted since start. */
  readonly connections: number;
  /** Connections open now. */
  readonly open: number;
  readonly bytesUpstream: number;
  readonly bytesDownstream: number;
  /** Each `set` to a mode other than `pass`, and each `cutAll`. */
  readonly faultsInjected: number;
  /** Connections destroyed by `reset` mode or `cutAll`. */
  readonly connectionsReset: number;
}

type Item =
  { readonly data: Buffer; readonly due: number } | { readonly end: true } | { readonly destroy: true };

const HOST = '127.0.0.1';
/** A lane this far behind stops reading its source (TCP back-pressure, so held bytes stay bounded). */
const HIGH_WATER = 1 << 20;

/** A TCP proxy between a process and Postgres, Redis or Vault whose link a test breaks on purpose. */
export class FaultProxy {
  private current: FaultMode = { mode: 'pass' };
  private readonly links = new Set<Link>();
  private readonly counters = { connections: 0, up: 0, down: 0, faults: 0, resets: 0 };

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const [targetHost, targetPort] = splitHostPort(options.target);
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
    server.listen(options.port ?? 0, HOST);
    await once(server, 'listening');
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const proxy = new FaultProxy(server, port, targetHost, targetPort);
    server.on('connection', (socket) => proxy.accept(socket));
    return proxy;
  }

  /** `127.0.0.1:<port>`: where clients connect instead of the target. */
  get address(): string {
    return `${HOST}:${this.port}`;
  }

  /** The same URL with its host and port replaced by the proxy's (credentials, path and query kept). */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = HOST;
    parsed.port = String(this.port);
    return parsed.toString();
  }

  get mode(): FaultMode {
    return this.current;
  }

  set(mode: FaultMode): void {
    this.current = mode;
    if (mode.mode !== 'pass') this.counters.faults++;
    for (const link of this.links) link.modeChanged();
  }

  /** Back to `pass`: held bytes flow again, connections deferred by a blackhole reach the target. */
  heal(): void {
    this.set({ mode: 'pass' });
  }

  /** Drops every open connection with a RST (the link stays in its current mode for new ones). */
  cutAll(): void {
    this.counters.faults++;
    for (const link of [...this.links]) link.reset();
  }

  get stats(): FaultProxyStats {
    return {
      connections: this.counters.connections,
      open: this.links.size,
      bytesUpstream: this.counters.up,
      bytesDownstream: this.counters.down,
      faultsInjected: this.counters.faults,
      connectionsReset: this.counters.resets,
    };
  }

  async close(): Promise<void> {
    for (const link of [...this.links]) link.reset(false);
    if (!this.server.listening) return;
    const closed = once(this.server, 'close');
    this.server.close();
    await closed;
  }

  private accept(client: Socket): void {
    this.counters.connections++;
    const link = new Link(this, client, () =>
      connect({ host: this.targetHost, port: this.targetPort, allowHalfOpen: true }),
    );
    this.links.add(link);
    client.once('close', () => link.closed());
  }

  /** @internal */
  forget(link: Link): void {
    this.links.delete(link);
  }

  /** @internal */
  counted(direction: Direction, bytes: number): void {
    if (direction === 'upstream') this.counters.up += bytes;
    else this.counters.down += bytes;
  }

  /** @internal */
  countReset(): void {
    this.counters.resets++;
  }
}

/** One client connection and its connection to the target. */
class Link {
  private upstream: Socket | undefined;
  private readonly lanes: { readonly upstream: Lane; readonly downstream: Lane };
  /** Bytes forwarded since the current `reset` mode was set. */
  private sinceReset = 0;
  private resetMode: FaultMode | undefined;
  private done = false;

  constructor(
    private readonly proxy: FaultProxy,
    private readonly client: Socket,
    private readonly dial: () => Socket,
  ) {
    client.on('error', () => undefined);
    this.lanes = {
      upstream: new Lane(this, 'upstream', client),
      downstream: new Lane(this, 'downstream', undefined),
    };
    this.modeChanged();
    client.resume();
  }

  get mode(): FaultMode {
    return this.proxy.mode;
  }

  modeChanged(): void {
    if (this.done) return;
    if (this.mode.mode === 'reset' && this.resetMode !== this.mode) {
      this.resetMode = this.mode;
      this.sinceReset = 0;
    }
    // A blackhole answers nothing, not even the connect: the target is dialled once the link heals.
    if (!this.upstream && this.mode.mode !== 'blackhole') this.connectUpstream();
    this.lanes.upstream.pump();
    this.lanes.downstream.pump();
  }

  private connectUpstream(): void {
    const upstream = this.dial();
    this.upstream = upstream;
    upstream.on('error', () => undefined);
    this.lanes.upstream.setTarget(upstream);
    this.lanes.downstream.setSource(upstream);
    this.lanes.downstream.setTarget(this.client);
  }

  /** How many of `wanted` bytes may cross before a `reset` mode's budget runs out. */
  allowance(wanted: number): number {
    if (this.mode.mode !== 'reset') return wanted;
    return Math.min(wanted, Math.max(0, this.mode.afterBytes - this.sinceReset));
  }

  forwarded(direction: Direction, bytes: number): void {
    this.proxy.counted(direction, bytes);
    if (this.mode.mode !== 'reset') return;
    this.sinceReset += bytes;
    if (this.sinceReset >= this.mode.afterBytes) this.reset();
  }

  reset(counted = true): void {
    if (this.done) return;
    if (counted) this.proxy.countReset();
    this.done = true;
    this.client.resetAndDestroy();
    this.upstream?.resetAndDestroy();
    this.closed();
  }

  closed(): void {
    this.done = true;
    this.upstream?.destroy();
    this.proxy.forget(this);
  }

  get finished(): boolean {
    return this.done;
  }
}

/** One direction of a link: a queue of chunks (and end/destroy markers) delivered in order. */
class Lane {
  private readonly queue: Item[] = [];
  private queued = 0;
  private target: Socket | undefined;
  private source: Socket | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastDue = 0;

  constructor(
    private readonly link: Link,
    private readonly direction: Direction,
    source: Socket | undefined,
  ) {
    if (source) this.setSource(source);
  }

  setSource(source: Socket): void {
    this.source = source;
    source.on('data', (data: Buffer) => this.enqueue({ data, due: this.dueTime() }));
    source.on('end', () => this.enqueue({ end: true }));
    source.on('error', () => this.enqueue({ destroy: true }));
  }

  setTarget(target: Socket): void {
    this.target = target;
    this.pump();
  }

  private dueTime(): number {
    const mode = this.link.mode;
    if (mode.mode !== 'latency') return 0;
    const jitter = mode.jitterMs ?? 0;
    const delay = Math.max(0, mode.latencyMs + (Math.random() * 2 - 1) * jitter);
    // Jitter never reorders: a chunk is not due before the one ahead of it.
    this.lastDue = Math.max(this.lastDue, Date.now() + delay);
    return this.lastDue;
  }

  private enqueue(item: Item): void {
    this.queue.push(item);
    if ('data' in item) {
      this.queued += item.data.length;
      if (this.queued > HIGH_WATER) this.source?.pause();
    }
    this.pump();
  }

  /** Delivers what the current mode lets through; called on every arrival, timer and mode change. */
  pump(): void {
    if (this.timer || !this.target || this.link.finished) return;
    const mode = this.link.mode;
    if (mode.mode === 'blackhole') return;
    if (mode.mode === 'half-open' && mode.stopped === this.direction) return;
    while (this.queue.length > 0 && !this.link.finished) {
      const head = this.queue[0]!;
      if (!('data' in head)) {
        this.queue.shift();
        if ('end' in head) this.target.end();
        else this.target.destroy();
        continue;
      }
      const wait = head.due - Date.now();
      if (wait > 0) return this.later(wait);
      const slice = this.sliceOf(head.data);
      // Only a spent reset budget allows nothing.
      if (slice === 0) return this.link.reset();
      this.send(head.data.subarray(0, slice));
      if (slice < head.data.length) this.queue[0] = { data: head.data.subarray(slice), due: head.due };
      else this.queue.shift();
      if (mode.mode === 'bandwidth') return this.later((slice / mode.bytesPerSecond) * 1000);
    }
  }

  /** Bytes of `data` to send now: all of it, a bandwidth slice (1/20 s worth) or what a reset budget allows. */
  private sliceOf(data: Buffer): number {
    const mode = this.link.mode;
    if (mode.mode === 'bandwidth') {
      return Math.min(data.length, Math.max(1, Math.floor(mode.bytesPerSecond / 20)));
    }
    return this.link.allowance(data.length);
  }

  private send(data: Buffer): void {
    this.queued -= data.length;
    if (this.queued <= HIGH_WATER) this.source?.resume();
    this.target!.write(data);
    this.link.forwarded(this.direction, data.length);
  }

  private later(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
  }
}

function splitHostPort(target: string): [string, number] {
  const colon = target.lastIndexOf(':');
  const port = Number(target.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || port <= 0)
    throw new Error(`target must be host:port, got ${target}`);
  return [target.slice(0, colon), port];
}
