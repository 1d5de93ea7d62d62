import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RequestValidationError } from './request-validation.error';

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
        done(error, undefined);
        return;
      }
      const problem = findInvalidText(parsed);
      done(problem ? new RequestValidationError(problem, 400, 'invalid_characters') : null, parsed);
    });
  });
  // JSON Lines (a memory export with format=jsonl): read as the array of its lines' values.
  fastify.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const values: unknown[] = [];
    for (const [index, line] of text.split('\n').entries()) {
      if (line.trim() === '') continue;
      let failure: Error | null = null;
      defaultParser(request, line, (error: Error | null, parsed?: unknown) => {
        failure = error;
        values.push(parsed);
      });
      if (failure) {
        done(new RequestValidationError(`line ${index + 1}: not valid JSON`, 400, 'invalid_json'), undefined);
        return;
      }
    }
    const problem = findInvalidText(values);
    done(problem ? new RequestValidationError(problem, 400, 'invalid_characters') : null, values);
  });
  fastify.addHook('preHandler', async (request: FastifyRequest) => {
    const problem = findInvalidText(request.query, 'query') ?? findInvalidText(request.params, 'path');
    if (problem) throw new RequestValidationError(problem, 400, 'invalid_characters');
  });
}
