import type { FastifyRequest } from 'fastify';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { type AuthenticateApiKeyUseCase, type GrantPrivateAccessUseCase, type Principal } from '@app/tenancy';
import { principalWithAccess } from '../auth/request-principal';
import type { RateLimitCharge } from '../rate-limit/register-rate-limit';
import '../auth/authenticated-request';

/**
 * Route-level `onRequest` hook: the same `Authorization: Bearer <key>` check as REST (and the same
 * `X-Private-Access-Reason` grant for admins), before the body is read. A failure throws TenancyError, which the global error handler answers with 401,
 * `WWW-Authenticate: Bearer` and `{detail, code}`.
 */
export function authenticationHook(
  authenticate: Pick<AuthenticateApiKeyUseCase, 'execute'>,
  grant: Pick<GrantPrivateAccessUseCase, 'execute'>,
) {
  return async (request: FastifyRequest): Promise<void> => {
    await principalWithAccess(request, authenticate, grant);
  };
}

/**
 * What the transport hands to every tool call as `extra.authInfo`; the key itself stays out. The
 * request's rate-limit charge rides along, so each tool call counts against its own budget.
 */
export function toAuthInfo(principal: Principal, rateLimit?: RateLimitCharge): AuthInfo {
  return {
    token: principal.keyId,
    clientId: principal.username,
    scopes: [...principal.scopes],
    extra: { principal, ...(rateLimit ? { rateLimit } : {}) },
  };
}

/** The request's rate-limit charge; undefined when no limit is installed. */
export function rateLimitChargeOf(extra: { authInfo?: AuthInfo }): RateLimitCharge | undefined {
  return extra.authInfo?.extra?.rateLimit as RateLimitCharge | undefined;
}

/** The verified caller of a tool call. Tools never take identity from their arguments. */
export function principalOf(extra: { authInfo?: AuthInfo }): Principal {
  const principal = extra.authInfo?.extra?.principal as Principal | undefined;
  // Unreachable through /mcp (the hook refuses unauthenticated requests); a wiring error otherwise.
  if (!principal) throw new Error('MCP request reached a tool without an authenticated principal');
  return principal;
}
