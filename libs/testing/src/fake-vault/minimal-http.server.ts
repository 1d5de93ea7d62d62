import { STATUS_CODES } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A deliberately small HTTP/1.1 server on `net`.
 *
 * Why not `node:http`: Vault lists keys with the non-standard `LIST` method, and Node's HTTP parser
 * (llhttp) rejects unknown methods with 400 before any handler runs. node-vault sends `LIST` by
 * default, so a Vault-compatible fake has to parse requests itself. It supports what HTTP clients
 * such as axios send: Content-Length or chunked bodies, keep-alive, one request at a time per socket.
 */
export interface MinimalRequest {
  readonly method: string;
  /** Path without the query string, percent-decoded per segment by the caller if needed. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export interface MinimalResponse {
  /** Sends a complete response. `body` undefined means no body (e.g. 204). */
  send(status: number, body?: string, contentType?: string): void;
}

export type MinimalHandler = (req: MinimalRequest, res: MinimalResponse) => void | Promise<void>;

const HEAD_END = Buffer.from('\r\n\r\n');

export class MinimalHttpServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly handler: MinimalHandler) {
    this.server = createServer((socket) => this.onConnection(socket));
  }

  listen(host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, host, () => resolve((this.server.address() as AddressInfo).port));
    });
  }

  /** Closes the listener and destroys open sockets, including ones a blackhole left hanging. */
  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private onConnection(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    let busy = false;

    const pump = (): void => {
      if (busy) return;
      const parsed = parseRequest(buffered);
      if (parsed === 'incomplete') return;
      if (parsed === 'invalid') {
        socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      buffered = buffered.subarray(parsed.consumed);
      busy = true;
      let answered = false;
      const res: MinimalResponse = {
        send: (status, body, contentType = 'application/json') => {
          if (answered || socket.destroyed) return;
          answered = true;
          const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body, 'utf8');
          const head = [
            `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}`,
            ...(body === undefined ? [] : [`Content-Type: ${contentType}`]),
            `Content-Length: ${payload.length}`,
            'Cache-Control: no-store',
            '',
            '',
          ].join('\r\n');
          socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
          busy = false;
          pump();
        },
      };
      void Promise.resolve(this.handler(parsed.request, res)).catch(() =>
        res.send(500, '{"errors":["internal error"]}'),
      );
    };

    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      pump();
    });
  }
}

type ParseResult = { request: MinimalRequest; consumed: number } | 'incomplete' | 'invalid';

function parseRequest(buf: Buffer): ParseResult {
  const headEnd = buf.indexOf(HEAD_END);
  if (headEnd < 0) return buf.length > 64 * 1024 ? 'invalid' : 'incomplete';
  const lines = buf.subarray(0, headEnd).toString('latin1').split('\r\n');
  const [method, target] = (lines[0] ?? '').split(' ');
  if (!method || !target) return 'invalid';
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyStart = headEnd + HEAD_END.length;
  const body = readBody(buf, bodyStart, headers);
  if (body === 'incomplete' || body === 'invalid') return body;
  const url = new URL(target, 'http://fake-vault');
  return {
    request: {
      method: method.toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers,
      body: body.body,
    },
    consumed: body.end,
  };
}

function readBody(
  buf: Buffer,
  start: number,
  headers: Record<string, string>,
): { body: Buffer; end: number } | 'incomplete' | 'invalid' {
  if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) return readChunked(buf, start);
  const length = Number(headers['content-length'] ?? '0');
  if (!Number.isInteger(length) || length < 0) return 'invalid';
  if (buf.length < start + length) return 'incomplete';
  return { body: buf.subarray(start, start + length), end: start + length };
}

function readChunked(buf: Buffer, start: number): { body: Buffer; end: number } | 'incomplete' | 'invalid' {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return 'incomplete';
    const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return 'invalid';
    const dataStart = lineEnd + 2;
    if (buf.length < dataStart + size + 2) return 'incomplete';
    if (size === 0) {
      // Trailers are not used by HTTP clients we drive; expect the terminating blank line.
      const end = buf.indexOf('\r\n', dataStart);
      return end < 0 ? 'incomplete' : { body: Buffer.concat(parts), end: end + 2 };
    }
    parts.push(buf.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}
