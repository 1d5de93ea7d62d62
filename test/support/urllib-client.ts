import { request as httpRequest } from 'node:http';
import type { JsonResponse } from './http-client';

/**
 * `json.dumps` with Python's defaults: `", "` and `": "` separators and every non-ASCII
 * character escaped (`ensure_ascii=True`), so a test sends the very bytes the Python client does.
 */
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`);
    return `{${members.join(', ')}}`;
  }
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  return JSON.stringify(value ?? null);
}

/** Methods for which Python's http.client sends `Content-Length: 0` when there is no body. */
const METHODS_EXPECTING_BODY = new Set(['PATCH', 'POST', 'PUT']);

/**
 * The requests claude-memory-mcp's `_api_request(method, path, body)` puts on the wire (Python
 * urllib): `Authorization: Bearer <key>` and `Content-Type: application/json` on every request,
 * a body only when `body` is truthy (an empty dict sends none), `Content-Length: 0` on a bodiless
 * POST/PUT, and urllib's own `Accept-Encoding`, `User-Agent` and `Connection` headers.
 */
export function urllibClient(baseUrl: string, apiKey: string) {
  const url = new URL(baseUrl);
  return <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: Record<string, unknown> | unknown[] | null,
  ): Promise<JsonResponse<T>> => {
    const hasBody = body !== undefined && body !== null && Object.keys(body).length > 0;
    const data = hasBody ? Buffer.from(pythonJsonDumps(body), 'utf8') : undefined;
    // Python 3.11's order: urllib's own headers, then the client's, then Connection.
    const headers: Record<string, string> = { 'Accept-Encoding': 'identity' };
    if (data) headers['Content-Length'] = String(data.length);
    else if (METHODS_EXPECTING_BODY.has(method)) headers['Content-Length'] = '0';
    Object.assign(headers, {
      Host: url.host,
      'User-Agent': 'Python-urllib/3.11',
      Authorization: `Bearer ${apiKey}`,
      'Content-Type': 'application/json',
      Connection: 'close',
    });

    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, method, path, headers, setHost: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              /* non-JSON bodies are returned as text */
            }
            const responseHeaders = new Headers();
            for (const [k, v] of Object.entries(res.headers)) {
              if (v !== undefined) responseHeaders.set(k, Array.isArray(v) ? v.join(', ') : v);
            }
            resolve({ status: res.statusCode ?? 0, body: parsed as T, headers: responseHeaders });
          });
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  };
}
