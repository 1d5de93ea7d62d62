import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { HookableFastify } from './hookable-fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a caller may send as its own request id: short, and safe to put in logs and headers. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function isValidRequestId(value: unknown): value is string {
  return typeof value === 'string' && VALID_REQUEST_ID.test(value);
}

/** Where the request's id is kept once given, so every asker gets the same one. */
const GIVEN_ID = Symbol('requestId');

/**
 * Request id for Fastify's `genReqId` (and pino-http's): the inbound `x-request-id` when it is
 * well-formed, so a trace crosses services; otherwise a fresh UUID. A malformed header is not
 * echoed anywhere, so it cannot inject into logs or response headers.
 */
export function genReqId(req: { headers: IncomingHttpHeaders }): string {
  // Fastify and pino-http each ask for the same request: both get the id first given.
  const known = (req as { [GIVEN_ID]?: string })[GIVEN_ID];
  if (known !== undefined) return known;
  const inbound = req.headers[REQUEST_ID_HEADER];
  const id = isValidRequestId(inbound) ? inbound : randomUUID();
  Object.defineProperty(req, GIVEN_ID, { value: id });
  return id;
}

/** Returns the request id to the caller, so a client can quote it in a bug report. */
export function registerRequestIdHeader(
  fastify: HookableFastify<{ readonly id: string }, { header(name: string, value: string): unknown }>,
): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
