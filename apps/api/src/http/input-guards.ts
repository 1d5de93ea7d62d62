import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { RequestValidationError } from './request-validation.error';

/** Media types read as JSON Lines. */
export const JSON_LINES_TYPES = ['application/x-ndjson', 'application/jsonl'] as const;

/**
 * Route config (`@RouteConfig(STREAMED_BODY)`) of a handler that reads a JSON Lines body itself, as
 * it arrives: the parser hands it the unread request stream, and the handler enforces its own size
 * limit (BODY_LIMIT_BYTES does not apply).
 */
export const STREAMED_BODY = { streamedBody: true } as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Finds the first string (or key) holding a NUL byte or a lone UTF-16 surrogate; Postgres cannot store either. */
export function findInvalidText(value: unknown, path = 'body', depth = 0): string | null {
  if (depth > 64) return `${path}: nesting is too deep`;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return `${path}: NUL characters are not allowed`;
    if (LONE_SURROGATE.test(value)) return `${path}: invalid Unicode (lone surrogate)`;
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findInvalidText(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const keyProblem = findInvalidText(key, `${path} key`, depth + 1);
      if (keyProblem) return keyProblem;
      const found = findInvalidText(child, `${path}.${key}`, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Why Fastify's safe parser refused a body: JSON.parse accepts what it refused only when the body
 * holds a `__proto__` or `constructor.prototype` key (prototype poisoning); otherwise it is
 * malformed, and JSON.parse says where.
 */
export function jsonParseError(text: string): RequestValidationError {
  try {
    JSON.parse(text);
  } catch (error) {
    const where = error instanceof SyntaxError ? `: ${error.message}` : '';
    return new RequestValidationError(`Malformed JSON${where}`, 400, 'malformed_json');
  }
  return new RequestValidationError(
    '`__proto__` and `constructor.prototype` keys are not allowed',
    400,
    'forbidden_property',
  );
}

/**
 * JSON parsing with Fastify's own safe parser (`__proto__` / `constructor.prototype` keys are
 * refused with 400), an empty body read as "no body", and text that Postgres cannot store refused
 * with 400 before any handler runs.
 */
export function registerInputGuards(fastify: FastifyInstance): void {
  const defaultParser = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    defaultParser(request, text, (error: Error | null, parsed?: unknown) => {
      if (error) {
        done(jsonParseError(text), undefined);
        return;
      }
      const problem = findInvalidText(parsed);
      done(problem ? new RequestValidationError(problem, 400, 'invalid_characters') : null, parsed);
    });
  });
  // JSON Lines: read as the array of its lines' values (a memory export with format=jsonl), or
  // handed over unread to a route that streams its body (STREAMED_BODY).
  fastify.addContentTypeParser([...JSON_LINES_TYPES], (request, payload, done) => {
    if ((request.routeOptions.config as { streamedBody?: boolean }).streamedBody === true) {
      done(null, payload);
      return;
    }
    readLimited(request, payload, (error, text) => {
      if (error || text === undefined) {
        done(error ?? null, undefined);
        return;
      }
      const values: unknown[] = [];
      for (const [index, line] of text.split('\n').entries()) {
        if (line.trim() === '') continue;
        let failure: Error | null = null;
        defaultParser(request, line, (parseError: Error | null, parsed?: unknown) => {
          failure = parseError;
          values.push(parsed);
        });
        if (failure) {
          const cause = jsonParseError(line);
          done(new RequestValidationError(`line ${index + 1}: ${cause.message}`, 400, cause.code), undefined);
          return;
        }
      }
      const problem = findInvalidText(values);
      done(problem ? new RequestValidationError(problem, 400, 'invalid_characters') : null, values);
    });
  });
  fastify.addHook('preHandler', async (request: FastifyRequest) => {
    const problem = findInvalidText(request.query, 'query') ?? findInvalidText(request.params, 'path');
    if (problem) throw new RequestValidationError(problem, 400, 'invalid_characters');
  });
}

/**
 * The body as text within the route's body limit, as Fastify reads the bodies of its own parsers:
 * a declared or received length over the limit answers 413, a short body 400.
 */
function readLimited(
  request: FastifyRequest,
  payload: IncomingMessage,
  done: (error: Error | null, text?: string) => void,
): void {
  const limit = request.routeOptions.bodyLimit;
  const declared = Number(request.headers['content-length']);
  if (declared > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) {
      stop();
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    chunks.push(chunk);
  };
  function onEnd(error?: Error) {
    stop();
    if (error) {
      done(Object.assign(error, { statusCode: 400 }));
      return;
    }
    if (!Number.isNaN(declared) && received !== declared) {
      done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return;
    }
    done(null, Buffer.concat(chunks).toString('utf8'));
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}
