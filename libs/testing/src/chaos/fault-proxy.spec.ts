import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultProxy } from './fault-proxy';

/** An echo server that also remembers what each connection sent it. */
class EchoServer {
  readonly received: Buffer[] = [];
  connections = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((socket) => {
    this.connections++;
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      this.received.push(d);
      socket.write(d);
    });
    socket.on('end', () => socket.end());
  });

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    const address = this.server.address();
    return `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  get receivedBytes(): number {
    return this.received.reduce((n, b) => n + b.length, 0);
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** A client socket that collects what comes back and how it ended. */
class Client {
  data = Buffer.alloc(0);
  error: NodeJS.ErrnoException | undefined;
  closed = false;
  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => (this.data = Buffer.concat([this.data, d])));
    socket.on('error', (e) => (this.error = e));
    socket.on('close', () => (this.closed = true));
  }

  static async open(port: number): Promise<Client> {
    const socket = connect({ host: '127.0.0.1', port });
    await once(socket, 'connect');
    return new Client(socket);
  }

  async received(bytes: number): Promise<Buffer> {
    await until(() => this.data.length >= bytes || this.closed);
    return this.data;
  }
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('FaultProxy', () => {
  let echo: EchoServer;
  let proxy: FaultProxy;
  const clients: Client[] = [];
  const open = async () => {
    const client = await Client.open(proxy.port);
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    echo = new EchoServer();
    proxy = await FaultProxy.start({ target: await echo.start() });
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.socket.destroy();
    await proxy.close();
    await echo.close();
  });

  it('passes bytes both ways untouched and counts them', async () => {
    const client = await open();
    client.socket.write('hello');
    expect((await client.received(5)).toString()).toBe('hello');
    expect(proxy.stats).toMatchObject({ connections: 1, open: 1, bytesUpstream: 5, bytesDownstream: 5 });
    expect(proxy.rewrite('postgres://u:p@db.example:5432/x?sslmode=disable')).toBe(
      `postgres://u:p@127.0.0.1:${proxy.port}/x?sslmode=disable`,
    );
  });

  it('delays every chunk in both directions and keeps their order despite jitter', async () => {
    const client = await open();
    proxy.set({ mode: 'latency', latencyMs: 60, jitterMs: 40 });
    const started = Date.now();
    const chunks = Array.from({ length: 40 }, (_, i) => `<${i}>`);
    for (const chunk of chunks) {
      client.socket.write(chunk);
      await sleep(2);
    }
    const expected = chunks.join('');
    expect((await client.received(expected.length)).toString()).toBe(expected);
    // Each direction waits at least latency - jitter.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * (60 - 40));
    expect(proxy.stats.faultsInjected).toBe(1);
  });

  it('blackhole: accepts connections and keeps them open, forwards and answers nothing, then heals', async () => {
    const before = await open();
    before.socket.write('a');
    await before.received(1);
    proxy.set({ mode: 'blackhole' });
    before.socket.write('held');
    const during = await open(); // accepted, although the target is not reached
    during.socket.write('new');
    await sleep(300);
    expect(echo.connections).toBe(1);
    expect(echo.receivedBytes).toBe(1);
    expect(before.data.toString()).toBe('a');
    expect(during.data.length).toBe(0);
    expect(before.closed || during.closed).toBe(false);

    proxy.heal();
    expect((await before.received(5)).toString()).toBe('aheld');
    expect((await during.received(3)).toString()).toBe('new');
    expect(echo.connections).toBe(2);
  });

  it('reset: destroys the connection with a RST once N bytes have crossed it', async () => {
    const client = await open();
    proxy.set({ mode: 'reset', afterBytes: 10 });
    client.socket.write('0123456789abcdefghij');
    await until(() => client.closed);
    expect(client.error?.code).toBe('ECONNRESET');
    expect(echo.receivedBytes).toBeLessThanOrEqual(10);
    expect(proxy.stats).toMatchObject({ open: 0, connectionsReset: 1 });
  });

  it('bandwidth: carries no more than the cap per second, every byte in order', async () => {
    const client = await open();
    proxy.set({ mode: 'bandwidth', bytesPerSecond: 4_000 });
    const payload = Buffer.from(Array.from({ length: 2_000 }, (_, i) => i % 251));
    const started = Date.now();
    client.socket.write(payload);
    const back = await client.received(payload.length);
    // 2,000 bytes at 4,000 bytes/s take half a second; the echo overlaps the two directions, and
    // the first slice (1/20 s worth) leaves at once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(500 - 50);
    expect(back.equals(payload)).toBe(true);
  });

  it('half-open: the stopped direction holds its bytes while the other keeps flowing', async () => {
    const client = await open();
    proxy.set({ mode: 'half-open', stopped: 'downstream' });
    client.socket.write('ping');
    await until(() => echo.receivedBytes === 4);
    await sleep(200);
    expect(client.data.length).toBe(0);
    proxy.heal();
    expect((await client.received(4)).toString()).toBe('ping');

    proxy.set({ mode: 'half-open', stopped: 'upstream' });
    client.socket.write('pong');
    await sleep(200);
    expect(echo.receivedBytes).toBe(4);
    proxy.heal();
    expect((await client.received(8)).toString()).toBe('pingpong');
  });

  it('cutAll drops the open connections and the next connection works', async () => {
    const first = await open();
    first.socket.write('x');
    await first.received(1);
    proxy.cutAll();
    await until(() => first.closed);
    expect(first.error?.code).toBe('ECONNRESET');
    const second = await open();
    second.socket.write('y');
    expect((await second.received(1)).toString()).toBe('y');
    expect(proxy.stats).toMatchObject({ connections: 2, open: 1, faultsInjected: 1, connectionsReset: 1 });
  });

  it('passes the end of a stream on, so the other side can finish', async () => {
    const client = await open();
    client.socket.end('bye');
    await until(() => client.closed);
    expect(client.data.toString()).toBe('bye');
    await until(() => proxy.stats.open === 0);
  });
});
