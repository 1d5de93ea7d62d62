import type { z } from 'zod';
import type { ApiErrorStatus } from './api-route.decorator';

/** A JSON body (request or response) for zod-to-openapi. */
export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

/** `{detail, code}`: the body of every error answer (HttpExceptionFilter, rate limiter). */
export const ERROR_SCHEMA = {
  type: 'object' as const,
  required: ['detail', 'code'],
  properties: {
    detail: { type: 'string' as const, description: 'Human-readable explanation' },
    code: { type: 'string' as const, description: 'Machine-readable, e.g. validation_failed, rate_limited' },
  },
};

export const RETRY_AFTER_HEADER = {
  description: 'Seconds to wait before trying again',
  schema: { type: 'integer' as const, minimum: 0 },
};

/** The draft standard rate-limit headers (draft-ietf-httpapi-ratelimit-headers), on every counted answer. */
export const RATE_LIMIT_HEADERS = {
  RateLimitLimit: {
    description: "Requests per minute in the budget this route counts against (the key's, or the address's)",
    schema: { type: 'integer' as const, minimum: 0 },
  },
  RateLimitRemaining: {
    description: 'Requests left in the budget this minute',
    schema: { type: 'integer' as const, minimum: 0 },
  },
  RateLimitReset: {
    description: 'Seconds until the budget starts again',
    schema: { type: 'integer' as const, minimum: 0 },
  },
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Plain OpenAPI (no zod inside), so it fits both a route and components/responses. */
// A type alias, not an interface: openapi3-ts objects need the implicit index signature.
export type ErrorResponseObject = {
  readonly description: string;
  readonly headers?: Record<string, { $ref: string }>;
  readonly content: { 'application/json': { schema: { $ref: string } } };
};

export const errorResponse = (description: string, retryAfter = false): ErrorResponseObject => ({
  description,
  ...(retryAfter ? { headers: { 'Retry-After': ref('headers', 'RetryAfter') } } : {}),
  content: { 'application/json': { schema: ref('schemas', 'Error') } },
});

/** A 429: Retry-After and the RateLimit-* headers. */
const rateLimitedResponse = (description: string): ErrorResponseObject => ({
  ...errorResponse(description, true),
  headers: {
    'Retry-After': ref('headers', 'RetryAfter'),
    'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
    'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
    'RateLimit-Reset': ref('headers', 'RateLimitReset'),
  },
});

/** Which routes can give a shared answer; decided from the route, never listed per route. */
export interface RouteTraits {
  readonly readsBody: boolean;
  readonly hasInput: boolean;
  readonly hasPathParams: boolean;
  readonly hasBodySchema: boolean;
  readonly authenticated: boolean;
  readonly scoped: boolean;
}

interface SharedResponse {
  readonly name: string;
  readonly status: ApiErrorStatus;
  readonly response: ErrorResponseObject;
  readonly appliesTo: (route: RouteTraits) => boolean;
}

/** Registered once under components/responses; each route references those that apply to it. */
export const SHARED_RESPONSES: readonly SharedResponse[] = [
  {
    name: 'BadRequest',
    status: 400,
    response: errorResponse('Malformed request: bad JSON, NUL bytes, bad parameters or paging'),
    appliesTo: (r) => r.hasInput,
  },
  {
    name: 'Unauthorized',
    status: 401,
    response: errorResponse('Missing or invalid API key'),
    appliesTo: (r) => r.authenticated,
  },
  {
    name: 'Forbidden',
    status: 403,
    response: errorResponse('The key lacks the scope this route requires'),
    appliesTo: (r) => r.scoped,
  },
  {
    name: 'NotFound',
    status: 404,
    response: errorResponse("Not found (including another user's memory)"),
    appliesTo: (r) => r.hasPathParams,
  },
  {
    name: 'PayloadTooLarge',
    status: 413,
    response: errorResponse('Body too large'),
    appliesTo: (r) => r.readsBody,
  },
  {
    name: 'ValidationFailed',
    status: 422,
    response: errorResponse('Validation failed'),
    appliesTo: (r) => r.hasBodySchema,
  },
  {
    name: 'RateLimited',
    status: 429,
    response: rateLimitedResponse(
      'Rate limited (`rate_limited`): this key (or address) spent its budget for the minute; the ' +
        'operation description names the budget (writes, reads, admin or session events)',
    ),
    appliesTo: () => true,
  },
  {
    name: 'ServiceUnavailable',
    status: 503,
    response: errorResponse(
      'A backing service (database, secret store, embedding model) is unavailable or the server is ' +
        'shutting down; Retry-After says when to try again when it is known',
      true,
    ),
    appliesTo: () => true,
  },
];

export const sharedResponseRef = (shared: SharedResponse) => ref('responses', shared.name);

/** The answers of writes that a tenant quota can refuse (docs/api.md "Quotas"), for `errors`. */
export const QUOTA_ERRORS = {
  memories: {
    413: 'Body too large, or the write would take the tenant past its content bytes quota (`storage_quota_exceeded`)',
    429: 'Rate limited (`rate_limited`), or the tenant stores as many memories as its quota allows (`quota_exceeded`)',
  },
  sessions: {
    429: 'Rate limited (`rate_limited`), or the tenant started as many sessions today (UTC) as its quota allows (`quota_exceeded`, Retry-After until midnight UTC)',
  },
} as const;
