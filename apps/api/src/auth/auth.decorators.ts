import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { TenancyError, TenancyErrorCode, type Principal, type Scope } from '@app/tenancy';
import './authenticated-request';

export const IS_PUBLIC_KEY = 'auth:public';
export const REQUIRED_SCOPES_KEY = 'auth:required-scopes';

/** The route needs no API key (health probes, metrics, docs). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, true);

/**
 * The key must hold every listed scope (403 otherwise). On a class and a method, both lists apply.
 */
export const RequireScopes = (...scopes: Scope[]): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_SCOPES_KEY, scopes);

/** The verified caller, as set by ApiKeyGuard. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // Only reachable on a @Public() route, which is a programming error on that route.
    if (!request.principal)
      throw new TenancyError(TenancyErrorCode.Unauthenticated, 'Authentication required');
    return request.principal;
  },
);
