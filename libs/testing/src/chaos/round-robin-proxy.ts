import { once } from 'node:events';
import { Agent, createServer, get, request, type IncomingMessage, type ServerResponse } from 'node:http';

export interface ProxiedRequest {
  /** The backend that got the request (the last one tried, when an earlier one refused the connection). */
  backend: number;
  readonly method: string;
  readonly path: string;
  /** 0 until answered; the backend's status, or the proxy's own 502/503 when `error` is set. */
  status: number;
  /** Why the proxy answered itself or cut the response: what a client behind a Service would see. */
  error?: string;
}

export interface RoundRobinProxyOptions {
  /**
   * Poll this path on every backend and send traffic only to those whose last answer was 200, the
   * way a Kubernetes Service only routes to ready pods. Without it every backend always gets its turn.
   */
  readonly readinessPath?: string;
  /** How often each backend's readiness is polled (default 200 ms). */
  readonly readinessIntervalMs?: number;
}

export interface RoundRobinProxy {
  readonly url: string;
  readonly backends: readonly string[];
  /** Every request in arrival order, with the backend it went to and its status. */
  readonly log: readonly ProxiedRequest[];
  /** Whether the backend gets new requests now. */
  inRotation(backend: number): boolean;
  /** Resolves once the backend is in rotation (`wanted` true) or out of it (false). */
  waitForRotation(backend: number, wanted?: boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The readiness probe's own timeout: the chart's `timeoutSeconds: 3` (a slow answer is not a no). */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * A load balancer without sticky sessions: each request goes to the next backend in rotation.
 *
 * With `readinessPath` it behaves like a Kubernetes Service in front of pods with a readiness
 * probe: a backend is in rotation while its last poll answered 200, and leaves it at once when a
 * connection to it is refused. It does not retry to hide failures — a Service does not either:
 * a reset, a cut response or a 5xx reaches the client as it happened. The one exception is a
 * refused connection: nothing was sent, the request cannot have had an effect, and a client of a
 * real Service would not see it either, since endpoints of a terminated pod are removed before its
 * listener closes (that removal is what this proxy's poll stands in for).
 */
export async function startRoundRobinProxy(
  backends: readonly string[],
  { readinessPath, readinessIntervalMs = 200 }: RoundRobinProxyOptions = {},
): Promise<RoundRobinProxy> {
  const probing = readinessPath !== undefined;
  const ready = backends.map(() => !probing);
  const log: ProxiedRequest[] = [];
  // Keep-alive connections to the backends, as clients behind a Service hold them: a draining
  // backend must end them itself (Connection: close) rather than reset a request sent on one.
  const agent = new Agent({ keepAlive: true });
  let next = 0;

  const pick = (refused: ReadonlySet<number>): number | undefined => {
    const candidates = backends.map((_, i) => i).filter((i) => ready[i] && !refused.has(i));
    return candidates.length === 0 ? undefined : candidates[next++ % candidates.length];
  };

  const failRequest = (entry: ProxiedRequest, res: ServerResponse, status: number, error: string) => {
    entry.error = error;
    if (res.headersSent) {
      // Part of the answer is out: the client sees the connection cut, as it would from the pod.
      res.destroy();
      return;
    }
    entry.status = status;
    res.writeHead(status, { 'content-type': 'text/plain', 'x-proxy-error': 'true' }).end(`proxy: ${error}`);
  };

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    entry: ProxiedRequest,
    body: Buffer,
    refused: Set<number>,
  ) => {
    const backend = pick(refused);
    if (backend === undefined) {
      failRequest(entry, res, 503, 'no backend in rotation');
      return;
    }
    entry.backend = backend;
    const upstream = request(
      new URL(req.url ?? '/', backends[backend]),
      { method: req.method, headers: req.headers, agent },
      (answer) => {
        entry.status = answer.statusCode ?? 502;
        res.writeHead(entry.status, answer.headers);
        answer.pipe(res);
        answer.on('close', () => {
          if (!answer.complete) failRequest(entry, res, 502, `${backends[backend]} cut its response`);
        });
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (probing && error.code === 'ECONNREFUSED') {
        // Refused at connect: no byte of the request left this proxy (a reused keep-alive socket
        // fails with a reset instead, and is not retried). Out of rotation until a poll says ready.
        ready[backend] = false;
        refused.add(backend);
        forward(req, res, entry, body, refused);
        return;
      }
      failRequest(
        entry,
        res,
        502,
        `${backends[backend]} failed after the request was sent: ${error.code ?? error.message}`,
      );
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  };

  const server = createServer((req, res) => {
    const entry: ProxiedRequest = { backend: -1, method: req.method ?? '', path: req.url ?? '', status: 0 };
    log.push(entry);
    // The body is kept so that a request refused at connect can go to the next backend whole.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => forward(req, res, entry, Buffer.concat(chunks), new Set()));
  });
  // Longer than any idle gap of a test's client, so the proxy never races a client's reuse.
  server.keepAliveTimeout = 65_000;

  let closed = false;
  const timers = new Set<NodeJS.Timeout>();
  const probe = (backend: number) =>
    new Promise<boolean>((resolve) => {
      const check = get(
        new URL(readinessPath ?? '/', backends[backend]),
        { agent: false, timeout: PROBE_TIMEOUT_MS },
        (answer) => {
          answer.resume();
          resolve(answer.statusCode === 200);
        },
      );
      check.on('timeout', () => check.destroy(new Error('readiness probe timed out')));
      check.on('error', () => resolve(false));
    });
  // One loop per backend, so a slow probe of one never delays the others.
  const pollLoop = async (backend: number): Promise<void> => {
    ready[backend] = await probe(backend);
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void pollLoop(backend);
    }, readinessIntervalMs);
    timers.add(timer);
  };
  if (probing) await Promise.all(backends.map((_, i) => pollLoop(i)));

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    backends,
    log,
    inRotation: (backend) => ready[backend],
    waitForRotation: async (backend, wanted = true, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (ready[backend] !== wanted) {
        if (Date.now() > deadline) {
          throw new Error(
            `${backends[backend]} did not ${wanted ? 'join' : 'leave'} the rotation in ${timeoutMs} ms`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: async () => {
      closed = true;
      timers.forEach(clearTimeout);
      server.closeAllConnections();
      server.close();
      agent.destroy();
      await once(server, 'close');
    },
  };
}
