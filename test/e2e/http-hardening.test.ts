import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { startApiProcess, type ApiProcess } from '../support/processes';

const TIMEOUT_MS = 2_000;

/** Opens a raw connection, sends `first`, then one more byte every `everyMs`; resolves when the server ends it. */
function trickle(url: string, first: string, everyMs: number): Promise<{ afterMs: number; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = '';
    const socket: Socket = connect(Number(port), hostname, () => socket.write(first));
    const timer = setInterval(() => socket.writable && socket.write('a'), everyMs);
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ afterMs: Date.now() - started, answer });
    });
  });
}

describe('HTTP hardening: slow clients are cut at REQUEST_TIMEOUT_MS; /mcp checks Host', () => {
  let api: ApiProcess;
  const team = teamFixture({ REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), REDIS_URL: '' });

  beforeAll(async () => {
    api = await startApiProcess(team.env);
  });

  afterAll(async () => {
    await api?.stop();
  });

  it('ends a connection whose headers never finish', async () => {
    const result = await trickle(api.url, 'GET /api/auth-check HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', 200);
    // Before: cut after ~50 s against a 30 s setting (deadlines checked every 30 s).
    expect(result.afterMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    // Deadlines are checked every 500 ms here; a loaded machine adds some slack. (Before: 30 s+.)
    expect(result.afterMs).toBeLessThan(TIMEOUT_MS + 4_000);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('ends a connection whose body never finishes', async () => {
    const headers =
      `POST /api/memories HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${team.keys.alice}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"content":"';
    const result = await trickle(api.url, headers, 200);
    // Deadlines are checked every 500 ms here; a loaded machine adds some slack. (Before: 30 s+.)
    expect(result.afterMs).toBeLessThan(TIMEOUT_MS + 4_000);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('answers /mcp only for localhost by default, refusing another Host (DNS rebinding)', async () => {
    const { port } = new URL(api.url);
    const post = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: Number(port),
            path: '/mcp',
            method: 'POST',
            headers: {
              host,
              authorization: `Bearer ${team.keys.alice}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
      });
    expect(await post('rebound.attacker.example')).toBe(403);
    expect(await post(`localhost:${port}`)).toBe(200);
    expect(await post(`127.0.0.1:${port}`)).toBe(200);
  });
});
