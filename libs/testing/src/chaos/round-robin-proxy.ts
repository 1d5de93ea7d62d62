import { once } from 'node:events';
import { createServer, request } from 'node:http';

export interface ProxiedRequest {
  readonly backend: number;
  readonly method: string;
  /** 0 until the backend has answered. */
  status: number;
}

export interface RoundRobinProxy {
  readonly url: string;
  /** Every request in arrival order, with the backend it went to and its status. */
  readonly log: readonly ProxiedRequest[];
  close(): Promise<void>;
}

/** A load balancer without sticky sessions: request n goes to backend n mod N. */
export async function startRoundRobinProxy(backends: readonly string[]): Promise<RoundRobinProxy> {
  const log: ProxiedRequest[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const entry: ProxiedRequest = { backend: next++ % backends.length, method: req.method ?? '', status: 0 };
    log.push(entry);
    const upstream = request(
      new URL(req.url ?? '/', backends[entry.backend]),
      { method: req.method, headers: req.headers },
      (answer) => {
        entry.status = answer.statusCode ?? 502;
        res.writeHead(entry.status, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      entry.status = 502;
      res.writeHead(502).end(String(error));
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
