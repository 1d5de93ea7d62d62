import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppConfig } from '@app/config';

export interface OriginPolicy {
  /** Normalised origins (scheme://host[:port]). */
  readonly allowedOrigins: readonly string[];
  /** Lower-case `host` or `host:port` values; empty → any Host. */
  readonly allowedHosts: readonly string[];
}

export interface OriginRefusal {
  readonly detail: string;
  readonly code: 'origin_not_allowed' | 'host_not_allowed';
}

function normaliseOrigin(value: string): string | null {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** The host part of a Host header (`[::1]:8080` → `[::1]`, `Example.com:443` → `example.com`). */
function hostname(host: string): string {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return host;
  }
}

/**
 * DNS-rebinding protection for /mcp. A browser always sends Origin on a cross-site POST, so an
 * Origin outside the list is refused; non-browser agents send none and pass. The Host check
 * catches a rebound name pointing at a server on the victim's network.
 */
export function checkOrigin(
  headers: { origin?: string; host?: string },
  policy: OriginPolicy,
): OriginRefusal | null {
  const { origin, host } = headers;
  if (origin !== undefined) {
    const normalised = normaliseOrigin(origin);
    if (normalised === null || !policy.allowedOrigins.includes(normalised)) {
      return {
        detail: `Origin ${JSON.stringify(origin)} may not call /mcp; an operator can allow it with MCP_ALLOWED_ORIGINS`,
        code: 'origin_not_allowed',
      };
    }
  }
  if (policy.allowedHosts.length > 0) {
    const value = (host ?? '').toLowerCase();
    if (!policy.allowedHosts.includes(value) && !policy.allowedHosts.includes(hostname(value))) {
      return {
        detail: `Host ${JSON.stringify(host ?? '')} is not served at /mcp; an operator can allow it with MCP_ALLOWED_HOSTS`,
        code: 'host_not_allowed',
      };
    }
  }
  return null;
}

/** What a browser preflight (`OPTIONS /mcp`) from an allowed origin is told. */
export const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'authorization, content-type, accept, mcp-protocol-version',
  'access-control-max-age': '600',
} as const;

/**
 * Route-level `onRequest` hook: refuses with 403 before the body is read or the key is checked.
 * An allowed browser origin gets CORS headers, so a page on it can read the answer (401s included).
 */
export function originHook(config: AppConfig['mcp']) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const { origin, host } = request.headers;
    const refusal = checkOrigin({ origin, host }, config);
    // Returning the reply tells Fastify the response is sent and the route must not run.
    if (refusal) return reply.code(403).send(refusal);
    if (origin !== undefined) void reply.headers({ 'access-control-allow-origin': origin, vary: 'Origin' });
    return undefined;
  };
}
