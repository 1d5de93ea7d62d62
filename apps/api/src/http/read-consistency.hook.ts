import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  CONSISTENCY_HEADER,
  consistencyToken,
  parseConsistencyToken,
  READ_CONSISTENCY,
  type ReadConsistency,
} from '@app/persistence';
import { RequestValidationError } from './request-validation.error';

const contexts = new WeakMap<FastifyRequest, ReadConsistency>();

/**
 * Read-your-writes across read replicas, per request: `X-Memory-Consistency` sent back from an
 * earlier answer names a write the request's reads must see; an answer to a request that wrote
 * carries the token of its last commit. The request's handler runs inside the context the
 * transaction runner reads and fills (entered again before the handler: body parsing runs outside it).
 */
export function registerReadConsistency(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers[CONSISTENCY_HEADER];
    const token = Array.isArray(header) ? header[header.length - 1] : header;
    let required = null;
    if (token !== undefined && token.trim() !== '') {
      required = parseConsistencyToken(token.trim());
      if (required === null) {
        done(
          new RequestValidationError(
            `${CONSISTENCY_HEADER} must be a token from an earlier answer's ${CONSISTENCY_HEADER} header`,
            400,
            'invalid_consistency_token',
          ),
        );
        return;
      }
    }
    const context: ReadConsistency = { required, written: null };
    contexts.set(request, context);
    READ_CONSISTENCY.run(context, done);
  });
  fastify.addHook('preHandler', (request, _reply, done) => {
    const context = contexts.get(request);
    if (context) READ_CONSISTENCY.run(context, done);
    else done();
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    const written = contexts.get(request)?.written;
    if (written !== null && written !== undefined)
      reply.header(CONSISTENCY_HEADER, consistencyToken(written));
    return payload;
  });
}
