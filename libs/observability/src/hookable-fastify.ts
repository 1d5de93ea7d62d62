/**
 * The part of a Fastify instance these hooks use. Structural on purpose: @nestjs/platform-fastify
 * bundles its own fastify copy, whose FastifyInstance type differs from the top-level one.
 */
export interface HookableFastify<Request, Reply> {
  addHook(
    name: 'onResponse' | 'onRequest',
    hook: (request: Request, reply: Reply, done: () => void) => void,
  ): unknown;
}
