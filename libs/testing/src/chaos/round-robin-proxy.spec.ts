import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy';

/** A backend that names itself in every answer; `ready` drives its /health/ready. */
interface Backend {
  readonly url: string;
  readonly server: Server;
  ready: boolean;
  /** Requests it received, except readiness polls. */
  readonly seen: string[];
  /** When set, the next request is answered by destroying the socket. */
  resetNext: boolean;
}

describe('startRoundRobinProxy', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(cleanup.splice(0).map((close) => close()));
  });

  const backend = async (name: string): Promise<Backend> => {
    const state = { ready: true, seen: [] as string[], resetNext: false };
    const server = createServer((req, res) => {
      if (req.url === '/health/ready') {
        res.writeHead(state.ready ? 200 : 503).end();
        return;
      }
      state.seen.push(`${req.method} ${req.url}`);
      if (state.resetNext) {
        state.resetNext = false;
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => res.writeHead(200).end(name));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    cleanup.push(async () => {
      if (!server.listening) return;
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    });
    return Object.assign(state, { url: `http://127.0.0.1:${port}`, server });
  };

  const proxyFor = async (
    backends: Backend[],
    probing: boolean,
    intervalMs = 20,
  ): Promise<RoundRobinProxy> => {
    const proxy = await startRoundRobinProxy(
      backends.map((b) => b.url),
      probing ? { readinessPath: '/health/ready', readinessIntervalMs: intervalMs } : {},
    );
    cleanup.unshift(() => proxy.close());
    return proxy;
  };

  const answers = async (proxy: RoundRobinProxy, n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${proxy.url}/work`, { method: 'POST', body: `call ${i}` });
      out.push(`${res.status} ${await res.text()}`);
    }
    return out;
  };

  it('without a readiness path, alternates strictly between the backends', async () => {
    const proxy = await proxyFor([await backend('a'), await backend('b')], false);
    expect(await answers(proxy, 4)).toEqual(['200 a', '200 b', '200 a', '200 b']);
    expect(proxy.log.map((r) => r.backend)).toEqual([0, 1, 0, 1]);
  });

  it('sends traffic only to backends whose last readiness poll answered 200, and takes them back', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const proxy = await proxyFor([a, b], true);
    a.ready = false;
    await proxy.waitForRotation(0, false);
    expect(await answers(proxy, 3)).toEqual(['200 b', '200 b', '200 b']);
    expect(a.seen).toEqual([]);

    a.ready = true;
    await proxy.waitForRotation(0, true);
    expect(new Set(await answers(proxy, 4))).toEqual(new Set(['200 a', '200 b']));
  });

  it('moves a request refused at connect to the next backend, and drops the refusing one at once', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    // No poll after the first: only the refused connection can take `a` out of rotation.
    const proxy = await proxyFor([a, b], true, 600_000);
    a.server.close();
    await once(a.server, 'close');
    expect(proxy.inRotation(0)).toBe(true);
    expect(await answers(proxy, 3)).toEqual(['200 b', '200 b', '200 b']);
    expect(proxy.inRotation(0)).toBe(false);
    expect(proxy.log.every((r) => r.backend === 1 && r.error === undefined)).toBe(true);
  });

  it('does not retry a request the backend received and then reset: the client sees the failure', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const proxy = await proxyFor([a, b], true);
    a.resetNext = true;
    b.resetNext = true;
    const res = await fetch(`${proxy.url}/work`, { method: 'POST', body: 'once' });
    expect(res.status).toBe(502);
    expect(res.headers.get('x-proxy-error')).toBe('true');
    expect(await res.text()).toMatch(/failed after the request was sent: ECONNRESET/);
    // Exactly one backend got it; the other was not tried.
    expect(a.seen.length + b.seen.length).toBe(1);
  });

  it('answers 503 when no backend is in rotation', async () => {
    const a = await backend('a');
    const proxy = await proxyFor([a], true);
    a.ready = false;
    await proxy.waitForRotation(0, false);
    expect(await answers(proxy, 1)).toEqual(['503 proxy: no backend in rotation']);
  });
});
