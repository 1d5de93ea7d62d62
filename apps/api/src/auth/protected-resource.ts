import type { FastifyInstance } from 'fastify';
import { type AppConfig } from '@app/config';
import { SCOPES } from '@app/tenancy';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * MCP authorization, resource-server side (RFC 9728, RFC 6750): with identity providers configured
 * (OAUTH_ISSUERS), the service publishes its protected-resource metadata — at the root for the
 * REST API and under `/mcp` for the MCP endpoint — naming the authorization servers a client gets
 * tokens from, and every 401 points to it (`WWW-Authenticate: Bearer resource_metadata="…"`), so a
 * client that speaks MCP authorization finds the identity provider on its own. The service is
 * never an authorization server itself.
 */
export function registerProtectedResource(fastify: FastifyInstance, oauth: AppConfig['oauth']): void {
  const resource = oauth.resource;
  if (oauth.issuers.length === 0 || resource === null) return;
  const metadata = (of: string) => ({
    resource: of,
    authorization_servers: oauth.issuers.map((i) => i.issuer),
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'memory-service',
  });
  for (const [path, of] of [
    [PROTECTED_RESOURCE_PATH, resource],
    [`${PROTECTED_RESOURCE_PATH}/mcp`, `${resource}/mcp`],
  ] as const) {
    fastify.route({
      method: 'GET',
      url: path,
      config: { rateLimit: false },
      handler: (_request, reply) =>
        reply.header('cache-control', 'public, max-age=300').type('application/json').send(metadata(of)),
    });
  }
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const challenge = reply.getHeader('www-authenticate');
    if (reply.statusCode === 401 && typeof challenge === 'string' && challenge.startsWith('Bearer ')) {
      const forMcp = request.url === '/mcp' || request.url.startsWith('/mcp?');
      const pointer = `${resource}${PROTECTED_RESOURCE_PATH}${forMcp ? '/mcp' : ''}`;
      // A presented credential that failed is an invalid token (RFC 6750 §3.1); none: just the pointer.
      const invalid = request.headers.authorization === undefined ? '' : ', error="invalid_token"';
      reply.header('www-authenticate', `${challenge}${invalid}, resource_metadata="${pointer}"`);
    }
    done(null, payload);
  });
}
