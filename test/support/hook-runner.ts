import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from './processes';

export const HOOKS_DIR = resolve(ROOT, 'clients/claude-code/hooks');

/**
 * The service session id the hooks derive from a client's session id: name-based UUID (SHA-1,
 * version 5) in the hooks' namespace, so every hook of one agent run addresses the same session.
 */
export function hookSessionId(client: string, key: string): string {
  const namespace = Buffer.from('220f8ce71d72481cad53f00b8953199e', 'hex');
  const bytes = createHash('sha1').update(namespace).update(`${client}:${key}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}

export interface HookRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time from spawn to exit, Node's start-up included. */
  readonly ms: number;
}

async function runNode(args: string[], input: unknown, env: Record<string, string>): Promise<HookRun> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? process.env.HOME ?? '/tmp', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => undefined);
  child.stdin.end(input === undefined ? '' : typeof input === 'string' ? input : JSON.stringify(input));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr, ms: performance.now() - started };
}

/**
 * Runs a hook script as the agent does: `node <script> [args]`, the hook input as JSON on stdin
 * (a string is sent as it is), only the given environment (plus PATH and HOME).
 */
export function runHookScript(
  script: string,
  input: unknown,
  env: Record<string, string>,
  args: string[] = [],
): Promise<HookRun> {
  return runNode([resolve(HOOKS_DIR, script), ...args], input, env);
}

/** Runs a `node …` command line from a client's hook configuration, with this checkout as the clone. */
export function runHookCommand(
  command: string,
  input: unknown,
  env: Record<string, string>,
  args: string[] = [],
): Promise<HookRun> {
  const [program, ...words] = command.replaceAll('/path/to/memory-service', ROOT).split(/\s+/);
  if (program !== 'node') throw new Error(`not a node command: ${command}`);
  return runNode([...words, ...args], input, env);
}

/** The records waiting in a spool directory, oldest first. */
export function spooled(spoolDir: string): Array<{ type: string; session: string; events?: unknown[] }> {
  try {
    return readdirSync(join(spoolDir, 'queue'))
      .filter((name) => !name.startsWith('.'))
      .sort()
      .map((name) => JSON.parse(readFileSync(join(spoolDir, 'queue', name), 'utf8')));
  } catch {
    return [];
  }
}

export interface FaultServer {
  readonly url: string;
  /** Requests (or connections, for `hang`) it received. */
  readonly hits: number;
  close(): Promise<void>;
}

function listen(server: Server, sockets: Set<Socket>): Promise<string> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => {
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
}

async function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  sockets.forEach((socket) => socket.destroy());
  server.close();
  await once(server, 'close');
}

/** Accepts connections and never answers. */
export async function hangingServer(): Promise<FaultServer> {
  const sockets = new Set<Socket>();
  let hits = 0;
  const server = createTcpServer((socket) => {
    hits += 1;
    socket.on('data', () => undefined);
  });
  const url = await listen(server, sockets);
  return {
    url,
    get hits() {
      return hits;
    },
    close: () => closeServer(server, sockets),
  };
}

/** Answers every request with 500. */
export async function failingServer(): Promise<FaultServer> {
  const sockets = new Set<Socket>();
  let hits = 0;
  const server = createHttpServer((req, res) => {
    hits += 1;
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"boom","code":"internal"}');
  });
  const url = await listen(server, sockets);
  return {
    url,
    get hits() {
      return hits;
    },
    close: () => closeServer(server, sockets),
  };
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface LosingProxy extends FaultServer {
  /** What the service answered to the requests whose answers were withheld. */
  readonly withheld: Array<{ status: number; body: unknown }>;
  /** Every request passed on, with the service's answer. */
  readonly forwarded: Array<{ method: string; path: string; status: number; body: unknown }>;
}

/**
 * Forwards every request to `upstream`; for the requests `lose` picks, waits until the service
 * has answered (so it stored what was sent) and then never answers the client: a send that
 * timed out after the server stored it. `stub` may answer a request itself instead (a route the
 * service does not have yet).
 */
export async function losingProxy(
  upstream: string,
  lose: (req: IncomingMessage) => boolean,
  stub: (req: IncomingMessage) => unknown = () => undefined,
): Promise<LosingProxy> {
  const sockets = new Set<Socket>();
  const withheld: Array<{ status: number; body: unknown }> = [];
  const forwarded: LosingProxy['forwarded'] = [];
  let hits = 0;
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    hits += 1;
    const stubbed = stub(req);
    if (stubbed !== undefined) {
      req.resume();
      forwarded.push({ method: req.method ?? '', path: req.url ?? '', status: 200, body: stubbed });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stubbed));
      return;
    }
    void (async () => {
      const payload = await body(req);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([name]) => !['host', 'connection', 'content-length'].includes(name),
        ) as Array<[string, string]>,
      );
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers,
        body: payload.length > 0 ? payload : undefined,
      });
      const text = await answer.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON: keep the text.
      }
      forwarded.push({ method: req.method ?? '', path: req.url ?? '', status: answer.status, body: parsed });
      if (lose(req)) {
        withheld.push({ status: answer.status, body: parsed });
        return;
      }
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(text);
    })().catch(() => res.destroy());
  });
  const url = await listen(server, sockets);
  return {
    url,
    withheld,
    forwarded,
    get hits() {
      return hits;
    },
    close: () => closeServer(server, sockets),
  };
}
