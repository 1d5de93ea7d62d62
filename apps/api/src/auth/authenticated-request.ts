import type { FastifyRequest } from 'fastify';
import { type Principal } from '@app/tenancy';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by ApiKeyGuard on every route that is not @Public(). */
    principal?: Principal;
  }
}

export type AuthenticatedRequest = FastifyRequest & { principal: Principal };
