import {
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import type { Type } from '@nestjs/common';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, webhookEventPayloadSchema, type WebhookEventType } from '@app/webhooks';
import { API_TAGS, type ApiTagName } from './api-route.decorator';
import {
  ERROR_SCHEMA,
  errorResponse,
  json,
  RATE_LIMIT_HEADERS,
  RETRY_AFTER_HEADER,
  SHARED_RESPONSES,
  sharedResponseRef,
  type RouteTraits,
} from './openapi-helpers';
import { budgetOfRoute } from '../rate-limit/rate-limit-budgets';
import { documentedRoutes, type DocumentedRoute, type RoutePrefix } from './route-metadata';

const BODY_METHODS = new Set(['post', 'put', 'patch']);
const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];

function traitsOf(route: DocumentedRoute): RouteTraits {
  const { body, query, params, headers } = route.options;
  const readsBody = BODY_METHODS.has(route.method);
  return {
    readsBody,
    hasInput: readsBody || Boolean(query ?? params ?? headers),
    hasPathParams: route.path.includes('{'),
    hasBodySchema: body !== undefined,
    authenticated: !route.isPublic,
    scoped: route.scopes.length > 0,
  };
}

/** Success first, then every error answer that applies, route-specific wording winning. */
function responsesOf(route: DocumentedRoute): RouteConfig['responses'] {
  const { response, responseDescription, errors = {} } = route.options;
  const traits = traitsOf(route);
  const byStatus = new Map<number, RouteConfig['responses'][string]>();
  for (const shared of SHARED_RESPONSES) {
    if (!shared.appliesTo(traits)) continue;
    const override = errors[shared.status];
    byStatus.set(
      shared.status,
      override === undefined ? sharedResponseRef(shared) : { ...shared.response, description: override },
    );
  }
  for (const [status, description] of Object.entries(errors)) {
    if (!byStatus.has(Number(status))) byStatus.set(Number(status), errorResponse(description));
  }
  const success: ResponseConfig = { description: responseDescription ?? 'OK', ...json(response) };
  const sorted = [...byStatus].sort(([a], [b]) => a - b);
  return Object.fromEntries([
    [String(route.successStatus), success],
    ...sorted.map(([s, r]) => [String(s), r]),
  ]);
}

function descriptionOf(route: DocumentedRoute): string | undefined {
  // Bearer auth cannot name scopes in OpenAPI 3.0, so say it in prose (read from @RequireScopes).
  const scopes = route.scopes.map((scope) => `\`${scope}\``).join(', ');
  const plural = route.scopes.length > 1 ? 's' : '';
  const scopeNote = scopes === '' ? undefined : `Requires scope${plural} ${scopes}.`;
  const budget = route.isPublic ? undefined : `Counts against the \`${budgetOfRoute(route)}\` rate limit.`;
  return [route.options.description, scopeNote, budget].filter(Boolean).join('\n\n') || undefined;
}

function toRouteConfig(route: DocumentedRoute): RouteConfig {
  const { operationId, tag, summary, body, bodyMediaTypes, query, params, headers } = route.options;
  const content = (schema: NonNullable<typeof body>) =>
    bodyMediaTypes === undefined
      ? json(schema)
      : { content: Object.fromEntries(bodyMediaTypes.map((type) => [type, { schema }])) };
  return {
    method: route.method,
    path: route.path,
    operationId,
    tags: [tag],
    summary,
    description: descriptionOf(route),
    security: route.isPublic ? [] : [{ bearer: [] }],
    request: { body: body && content(body), query, params, headers },
    responses: responsesOf(route),
  };
}

const WEBHOOKS_TAG =
  'Events POSTed to the endpoints a tenant admin registers (`POST /api/admin/webhooks`), signed per Standard ' +
  'Webhooks: `webhook-signature` holds `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` for ' +
  'each secret that signs (two during a rotation’s overlap), keyed with the base64-decoded part of the `whsec_` ' +
  'secret. Answer 2xx within WEBHOOK_TIMEOUT_MS; anything else is retried with exponential backoff. Deliveries ' +
  'are at least once: deduplicate on `webhook-id`.';

const webhookHeaders = z.object({
  'webhook-id': z.string().describe('The event’s id (msg_…): the same on every attempt; deduplicate on it'),
  'webhook-timestamp': z
    .string()
    .describe('When this attempt was sent, in Unix seconds: refuse old ones (replay)'),
  'webhook-signature': z.string().describe('Space-separated `v1,<base64>` signatures'),
});

/** One event as an OpenAPI 3.1 webhook: its headers and its body. */
function webhookOf(type: WebhookEventType): RouteConfig {
  return {
    method: 'post',
    path: type,
    operationId: `webhook.${type}`,
    tags: ['webhooks'],
    summary: `The ${type} event`,
    request: {
      headers: webhookHeaders,
      body: json(webhookEventPayloadSchema.extend({ type: z.literal(type) })),
    },
    responses: {
      '200': { description: 'Any 2xx answer delivers the event' },
      default: { description: 'Anything else (or no answer in time) is retried with backoff' },
    },
  };
}

function checkUnique(routes: readonly DocumentedRoute[]): void {
  const seen = new Map<string, string>();
  for (const route of routes) {
    for (const key of [`operationId ${route.options.operationId}`, `${route.method} ${route.path}`]) {
      const other = seen.get(key);
      if (other) throw new Error(`OpenAPI: ${key} is declared by both ${other} and ${route.handler}`);
      seen.set(key, route.handler);
    }
  }
}

/**
 * The OpenAPI document, generated from the @ApiRoute descriptions on the given controllers
 * (see discoverControllers) and Nest's own route metadata: no second list of routes to drift.
 */
export function buildOpenApiDocument(controllers: readonly Type[], mount: RoutePrefix) {
  const routes = documentedRoutes(controllers, mount).sort(
    (a, b) => a.path.localeCompare(b.path) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
  );
  checkUnique(routes);

  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  registry.registerComponent('schemas', 'Error', ERROR_SCHEMA);
  registry.registerComponent('headers', 'RetryAfter', RETRY_AFTER_HEADER);
  for (const [name, header] of Object.entries(RATE_LIMIT_HEADERS)) {
    registry.registerComponent('headers', name, header);
  }
  for (const shared of SHARED_RESPONSES) {
    registry.registerComponent('responses', shared.name, shared.response);
  }
  for (const route of routes) registry.registerPath(toRouteConfig(route));
  for (const type of WEBHOOK_EVENT_TYPES) registry.registerWebhook(webhookOf(type));

  const used = new Set<ApiTagName>(routes.map((route) => route.options.tag));
  const tags: { name: string; description: string }[] = (Object.keys(API_TAGS) as ApiTagName[])
    .filter((name) => used.has(name))
    .map((name) => ({ name, description: API_TAGS[name] }));
  tags.push({ name: 'webhooks', description: WEBHOOKS_TAG });
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Memory service',
      version: '0.1.0',
      description:
        'Shared memory for AI coding agents. Every route needs `Authorization: Bearer <key>`. ' +
        'Errors are `{"detail","code"}`.',
    },
    servers: [{ url: '/', description: 'This server' }],
    tags,
  });
}
