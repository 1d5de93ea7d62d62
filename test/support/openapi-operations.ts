import { request as httpRequest } from 'node:http';
import type { JsonSchema } from '@app/testing';

export interface OperationParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly schema: JsonSchema;
}

/** One operation of the served OpenAPI document, flattened for request generation. */
export interface ApiOperation {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly parameters: readonly OperationParameter[];
  readonly body?: { readonly contentType: string; readonly schema: JsonSchema };
  /** Every status the operation documents. */
  readonly documented: ReadonlySet<number>;
  readonly admin: boolean;
}

interface RawOperation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
}

export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, RawOperation>>;
}

export function operationsOf(doc: OpenApiDocument): ApiOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => {
      const content = Object.entries(op.requestBody?.content ?? {})[0];
      return {
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []).map((p) => ({
          name: p.name,
          in: p.in as OperationParameter['in'],
          required: p.required === true,
          schema: p.schema ?? { type: 'string' },
        })),
        body: content ? { contentType: content[0], schema: content[1].schema } : undefined,
        documented: new Set(Object.keys(op.responses).map(Number)),
        admin: path.startsWith('/api/admin/'),
      };
    }),
  );
}

/** `/api/memories/{id}` with `{id}` replaced (values are sent as given: encode them first). */
export function fillPath(path: string, values: Readonly<Record<string, string>>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? 'missing');
}

export interface RawAnswer {
  readonly status: number;
  readonly text: string;
  readonly contentType: string;
  /** Set when no answer came (connection closed, or nothing within the timeout). */
  readonly error?: string;
}

export interface RawRequest {
  readonly method: string;
  readonly url: string;
  readonly key?: string;
  readonly body?: string | Uint8Array;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Sends a request as given (no JSON encoding); never throws: a hang or a reset is an answer too.
 * node:http rather than fetch: a server that answers 413 and closes while a large body is still
 * being written has answered, and node:http hands over that answer where fetch only fails.
 */
/** Bodies from this size on wait a moment for an early answer before they are written. */
const EARLY_ANSWER_BYTES = 256 * 1024;

export function sendRaw(request: RawRequest, timeoutMs = 20_000): Promise<RawAnswer> {
  const headers: Record<string, string | number> = { ...request.headers };
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  if (request.contentType) headers['content-type'] = request.contentType;
  if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
  return new Promise((resolve) => {
    let answered = false;
    const done = (answer: RawAnswer) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const sent = httpRequest(request.url, { method: request.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      const finish = () =>
        done({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          contentType: String(res.headers['content-type'] ?? ''),
        });
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', finish);
      res.on('error', finish);
      res.on('close', finish);
    });
    let responded = false;
    sent.on('response', () => (responded = true));
    // A write cut short after the answer began is the server closing on a body it refused.
    sent.on('error', (error) => {
      if (!responded)
        setTimeout(() => done({ status: 0, text: '', contentType: '', error: String(error) }), 200);
    });
    const timer = setTimeout(() => {
      sent.destroy();
      done({ status: 0, text: '', contentType: '', error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    const size = request.body === undefined ? 0 : Buffer.byteLength(request.body);
    if (size < EARLY_ANSWER_BYTES) {
      sent.end(request.body);
      return;
    }
    // A large body goes out only if the server has not refused it from its headers already: a
    // server that answers 413 and closes makes the kernel reset a socket still receiving, and the
    // reset can discard the answer before it is read (what clients that wait for 100-continue avoid).
    sent.flushHeaders();
    setTimeout(() => {
      if (!responded) sent.end(request.body);
    }, 300);
  });
}

/** A JSON error body as the API documents it: `{detail, code}`. */
export function isJsonError(answer: RawAnswer): boolean {
  if (!answer.contentType.includes('json')) return false;
  try {
    const body = JSON.parse(answer.text) as { detail?: unknown; code?: unknown };
    return typeof body.detail === 'string' && typeof body.code === 'string';
  } catch {
    return false;
  }
}

/** Runs `count` tasks, `concurrency` at a time. */
export async function inPool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
