import { RequestMethod } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { type AppConfig } from '@app/config';
import { AuthenticateApiKeyUseCase } from '@app/tenancy';
import { ConsoleSessionAuth } from '../auth/console-session-auth';
import { registerConsoleSignIn } from '../auth/console-sign-in.routes';
import { rateLimitKey } from '../auth/request-principal';
import { buildOpenApiDocument } from '../openapi/openapi-document';
import { discoverControllers, documentedRoutes } from '../openapi/route-metadata';
import { anyBudgetLimited } from '../rate-limit/rate-limit-budgets';
import { createRateLimitRedis } from '../rate-limit/rate-limit-redis';
import { registerRateLimit } from '../rate-limit/register-rate-limit';
import { PROTECTED_RESOURCE_PATH, registerProtectedResource } from '../auth/protected-resource';
import { registerInputGuards } from './input-guards';
import { registerReadConsistency } from './read-consistency.hook';
import { CONSOLE_PATH, registerWebConsole } from './web-console';

/** Every controller route is served under this prefix, except UNPREFIXED_PATHS. */
export const API_PREFIX = 'api';

/** Paths served outside the `/api` prefix and without authentication. */
export const UNPREFIXED_PATHS = ['health', 'health/live', 'health/ready', 'metrics', 'version'];

/** Everything about the HTTP surface that is not a controller: parsing, limits, errors, docs. */
export async function configureHttp(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  registerInputGuards(fastify);
  registerReadConsistency(fastify);
  // OAuth protected-resource metadata and the 401s' pointer to it (when identity providers are set).
  registerProtectedResource(fastify, config.oauth);
  // The console's sign-in with the identity providers (/auth/*; when a console client is configured).
  registerConsoleSignIn(fastify, app);

  // Errors raised by Fastify itself (body parsing, size limit) and by its plugins (rate limit) reach
  // HttpExceptionFilter too: Nest installs Fastify's error handler during init and routes it through
  // the global filters (Fastify's own errors as HttpExceptions; error-mapping names them by status).
  const mount = { prefix: API_PREFIX, unprefixed: UNPREFIXED_PATHS };
  if (anyBudgetLimited(config.http.rateLimits)) {
    const authenticate = app.get(AuthenticateApiKeyUseCase);
    const session = app.get(ConsoleSessionAuth);
    await registerRateLimit(fastify, {
      budgets: config.http.rateLimits,
      routes: documentedRoutes(discoverControllers(app), mount),
      // Shared by every replica when there is a Redis; this process's own counters otherwise.
      redis: config.redis.url ? createRateLimitRedis(fastify, config.redis.url) : undefined,
      keyPrefix: `${config.redis.queuePrefix}:rate-limit:`,
      // Per authenticated key (team members share office IPs), else per address: re-spelling the
      // header or trying many wrong keys does not earn a fresh budget.
      identify: (request) => rateLimitKey(request, authenticate, session),
      exempt: (request) =>
        UNPREFIXED_PATHS.some((p) => request.url === `/${p}`) ||
        isConsolePath(request.url) ||
        request.url.startsWith('/auth/') ||
        request.url.startsWith(PROTECTED_RESOURCE_PATH),
    });
  }

  // The web console's static pages (apps/ui, built into dist/ui).
  await registerWebConsole(fastify);

  app.setGlobalPrefix(API_PREFIX, {
    exclude: UNPREFIXED_PATHS.map((path) => ({ path, method: RequestMethod.ALL })),
  });
  // Built from the @ApiRoute metadata of the controllers this app actually mounts (known once the
  // app is created, before init registers the routes).
  const document = buildOpenApiDocument(discoverControllers(app), mount);
  SwaggerModule.setup('docs', app, document as never, { jsonDocumentUrl: 'docs/json' });
}

function isConsolePath(url: string): boolean {
  return url === CONSOLE_PATH || url.startsWith(`${CONSOLE_PATH}/`) || url.startsWith(`${CONSOLE_PATH}?`);
}
