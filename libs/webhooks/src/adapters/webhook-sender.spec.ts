import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../domain/address-policy';
import { RefusedAddressError, WebhookSender, type Resolver } from './webhook-sender';

describe('WebhookSender', () => {
  let server: Server;
  let port = 0;
  const seen: { host: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ host: req.headers.host, body: Buffer.concat(chunks).toString() });
        if (req.url === '/slow') return void setTimeout(() => res.writeHead(200).end(), 2_000);
        if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
        if (req.url === '/big') return void res.writeHead(200).end(Buffer.alloc(1024 * 1024, 97));
        res.writeHead(req.url === '/fail' ? 503 : 200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A resolver that answers from a table, as DNS would. */
  const table =
    (entries: Record<string, string[]>): Resolver =>
    async (host) => {
      const addresses = entries[host];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };

  const allowLoopback = new AddressPolicy(['127.0.0.1/32']);

  it('refuses a host when any address it resolves to is refused', async () => {
    const sender = new WebhookSender(
      new AddressPolicy([]),
      1_000,
      table({ 'hooks.example.com': ['93.184.216.34', '10.0.0.7'], 'ok.example.com': ['93.184.216.34'] }),
    );
    await expect(sender.check(new URL('https://hooks.example.com/x'))).rejects.toThrow(RefusedAddressError);
    await expect(sender.check(new URL('https://hooks.example.com/x'))).rejects.toThrow(
      /10\.0\.0\.7 \(private\)/,
    );
    await expect(sender.check(new URL('https://ok.example.com/x'))).resolves.toBeUndefined();
    await expect(sender.check(new URL('https://missing.example.com/x'))).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });

  it('posts to an allowed address and reports the status; a non-2xx or a redirect is a failure', async () => {
    const sender = new WebhookSender(allowLoopback, 1_000, table({ 'receiver.test': ['127.0.0.1'] }));
    const ok = await sender.send(
      `http://receiver.test:${port}/ok`,
      { 'content-type': 'application/json' },
      '{"n":1}',
    );
    expect(ok).toMatchObject({ statusCode: 200, error: null });
    expect(seen.at(-1)).toEqual({ host: `receiver.test:${port}`, body: '{"n":1}' });
    expect(await sender.send(`http://receiver.test:${port}/fail`, {}, '{}')).toMatchObject({
      statusCode: 503,
      error: 'the receiver answered 503',
    });
    expect(await sender.send(`http://receiver.test:${port}/redirect`, {}, '{}')).toMatchObject({
      statusCode: 302,
    });
  });

  it('checks the address again when connecting: a name rebound to a refused address is not reached', async () => {
    let calls = 0;
    // Public when registered, loopback when sent (DNS rebinding), and loopback is not allowed here.
    const rebinding: Resolver = async () => [
      { address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 },
    ];
    const sender = new WebhookSender(new AddressPolicy([]), 1_000, rebinding);
    await sender.check(new URL(`http://rebind.test:${port}/ok`));
    const before = seen.length;
    const result = await sender.send(`http://rebind.test:${port}/ok`, {}, '{}');
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/127\.0\.0\.1 \(loopback\)/);
    expect(seen.length).toBe(before);
    // A literal address is checked without DNS.
    expect((await sender.send(`http://127.0.0.1:${port}/ok`, {}, '{}')).error).toMatch(/loopback/);
  });

  it('gives up after the timeout and reads at most a capped answer', async () => {
    const sender = new WebhookSender(allowLoopback, 300, table({}));
    const slow = await sender.send(`http://127.0.0.1:${port}/slow`, {}, '{}');
    expect(slow).toMatchObject({ statusCode: null, error: 'no answer within WEBHOOK_TIMEOUT_MS' });
    expect(slow.durationMs).toBeLessThan(1_500);
    expect(await sender.send(`http://127.0.0.1:${port}/big`, {}, '{}')).toMatchObject({
      statusCode: 200,
      error: null,
    });
  });
});
