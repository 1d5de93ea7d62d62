import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Link, type LinkOwner } from './fault-proxy-link';

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

const HOST = '127.0.0.1';

/** A TCP proxy between a process and Postgres, Redis or Vault whose link a test breaks on purpose. */
export class FaultProxy {
  private current: FaultMode = { mode: 'pass' };
  private readonly links = new Set<Link>();
  private readonly counters = { connections: 0, up: 0, down: 0, faults: 0, resets: 0 };
  /** What a link may see of its proxy. */
  private readonly owner: LinkOwner = {
    mode: () => this.current,
    forget: (link) => this.links.delete(link),
    counted: (direction, bytes) => {
      if (direction === 'upstream') this.counters.up += bytes;
      else this.counters.down += bytes;
    },
    countReset: () => this.counters.resets++,
  };

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
    const link = new Link(this.owner, client, () =>
      connect({ host: this.targetHost, port: this.targetPort, allowHalfOpen: true }),
    );
    this.links.add(link);
    client.once('close', () => link.closed());
  }
}

function splitHostPort(target: string): [string, number] {
  const colon = target.lastIndexOf(':');
  const port = Number(target.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || port <= 0)
    throw new Error(`target must be host:port, got ${target}`);
  return [target.slice(0, colon), port];
}
