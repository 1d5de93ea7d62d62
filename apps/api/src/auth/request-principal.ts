import type { FastifyRequest } from 'fastify';
import {
  PRIVATE_ACCESS_REASON_HEADER,
  TenancyError,
  TenancyErrorCode,
  type AuthenticateApiKeyUseCase,
  type GrantPrivateAccessUseCase,
  type Principal,
} from '@app/tenancy';
import { addRequestLogFields } from '@app/observability';
import './authenticated-request';
import type { ConsoleSessionAuth } from './console-session-auth';

/**
 * The request's authenticated caller, verified once per request: the rate limiter, the REST guard
 * and the MCP hook all ask, and only the first asks the key store. Throws TenancyError (401) for a
 * missing or invalid key. With `session` (REST only), an `/api` request without Authorization may
 * authenticate with the console's session cookie (and its CSRF token for a change).
 */
export async function principalFor(
  request: FastifyRequest,
  authenticate: Pick<AuthenticateApiKeyUseCase, 'execute'>,
  session?: Pick<ConsoleSessionAuth, 'sessionToken' | 'principal'>,
): Promise<Principal> {
  if (request.principal) return request.principal;
  const sessionToken = session?.sessionToken(request);
  const principal =
    sessionToken !== undefined
      ? await session!.principal(request, sessionToken)
      : await authenticate.execute(bearerToken(request.headers.authorization), String(request.id));
  request.principal = principal;
  addRequestLogFields(request.raw, { keyId: principal.keyId });
  return principal;
}

/**
 * The request's caller, with access to the members' private memories when an admin asked for it with
 * `X-Private-Access-Reason` and the tenant allows it (audited once per request; 403 otherwise, 400 for
 * a reason that says nothing). Without the header: the caller as authenticated.
 */
export async function principalWithAccess(
  request: FastifyRequest,
  authenticate: Pick<AuthenticateApiKeyUseCase, 'execute'>,
  grant: Pick<GrantPrivateAccessUseCase, 'execute'>,
  session?: Pick<ConsoleSessionAuth, 'sessionToken' | 'principal'>,
): Promise<Principal> {
  const principal = await principalFor(request, authenticate, session);
  const reason = request.headers[PRIVATE_ACCESS_REASON_HEADER];
  if (reason === undefined || principal.privateAccess === true) return principal;
  const path = request.url.split('?')[0];
  request.principal = await grant.execute(principal, [reason].flat().join(', '), {
    method: request.method,
    path,
  });
  return request.principal;
}

/**
 * What the rate limit counts a request against: the authenticated key (however the header is
 * spelled), or the client address when there is no valid key, so a flood of wrong keys from one
 * address is throttled as one client.
 */
export async function rateLimitKey(
  request: FastifyRequest,
  authenticate: Pick<AuthenticateApiKeyUseCase, 'execute'>,
  session?: Pick<ConsoleSessionAuth, 'sessionToken' | 'principal'>,
): Promise<string> {
  if (request.headers.authorization !== undefined || session?.sessionToken(request) !== undefined) {
    try {
      return `key:${(await principalFor(request, authenticate, session)).keyId}`;
    } catch {
      // Not a valid key: the guard answers 401; the attempt still counts against the address.
    }
  }
  return `addr:${request.ip}`;
}

/** Extracts the key from `Authorization: Bearer <key>` (scheme case-insensitive). */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw new TenancyError(
      TenancyErrorCode.Unauthenticated,
      'Missing API key: send "Authorization: Bearer <key>"',
    );
  }
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) {
    throw new TenancyError(
      TenancyErrorCode.Unauthenticated,
      'The Authorization header must be "Bearer <key>"',
    );
  }
  return match[1];
}
