import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimitBudgets } from '@app/config';
import { toOpenApiPath, type DocumentedRoute } from '../openapi/route-metadata';
import { budgetOfKey, budgetOfRoute, RATE_LIMIT_WINDOW_MS, type RateLimitBudget } from './rate-limit-budgets';
import { RateLimitedError } from './rate-limited.error';

export interface RateLimitSetup {
  readonly budgets: RateLimitBudgets;
  /** The app's routes, to know each one's budget (its scopes, or what its @ApiRoute declares). */
  readonly routes: readonly DocumentedRoute[];
  /** Shared counters across replicas (server mode); absent: counters in this process. */
  readonly redis?: Redis;
  /** Prefix of the counters' Redis keys. */
  readonly keyPrefix: string;
  /** Who a request counts as: its key once authenticated, else its client address. */
  readonly identify: (request: FastifyRequest) => Promise<string>;
  /** Requests never counted (probes, metrics). */
  readonly exempt: (request: FastifyRequest) => boolean;
}

/** Set on a stand-in for the request when a check is made for a budget of its own (MCP tool calls). */
const BUDGET = Symbol('rateLimitBudget');
type Charged = FastifyRequest & { [BUDGET]?: RateLimitBudget };

const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/**
 * Registers @fastify/rate-limit: one counter per budget and identity (`<budget>:key:<key id>` or
 * `<budget>:addr:<address>`) and minute, in Redis when there is one (so replicas share it) and in
 * this process otherwise. A route's budget comes from the scopes it requires (see budgetForScopes)
 * or its @ApiRoute `rateLimit`; an unknown route (a 404) counts as a read. A budget of 0 is not
 * counted at all. Answers 429 `rate_limited` with Retry-After and the draft standard
 * RateLimit-Limit/Remaining/Reset headers. When Redis fails (down, or no answer within its command
 * timeout) the request is let through (skipOnError): an outage never turns into 500s or hangs.
 */
export async function registerRateLimit(fastify: FastifyInstance, setup: RateLimitSetup): Promise<void> {
  const byRoute = new Map(
    setup.routes.map((route) => [routeKey(route.method, route.path), budgetOfRoute(route)]),
  );
  const budgetOf = (request: Charged): RateLimitBudget =>
    request[BUDGET] ??
    byRoute.get(routeKey(request.method, toOpenApiPath(request.routeOptions.url ?? ''))) ??
    'reads';
  // A route with its own limit (the duplicates scan) keeps it whatever its budget.
  const hasOwnLimit = (request: FastifyRequest) => typeof request.routeOptions.config?.rateLimit === 'object';

  await fastify.register(rateLimit, {
    timeWindow: RATE_LIMIT_WINDOW_MS,
    max: (_request, key) => setup.budgets[budgetOfKey(key)],
    // The budget is read before the first await: a check made for a stand-in sees its own.
    keyGenerator: (request) => {
      const budget = budgetOf(request);
      return setup.identify(request).then((identity) => `${budget}:${identity}`);
    },
    allowList: (request, key) =>
      setup.exempt(request) || (!hasOwnLimit(request) && setup.budgets[budgetOfKey(key)] === 0),
    enableDraftSpec: true,
    skipOnError: true,
    ...(setup.redis ? { redis: setup.redis, nameSpace: setup.keyPrefix } : {}),
    errorResponseBuilder: (request, context) =>
      new RateLimitedError(budgetOf(request), context.max, Math.max(1, Math.ceil(context.ttl / 1000))),
  });
}

/** The verdict of one check made outside the route hook (MCP). */
export interface RateLimitVerdict {
  readonly limited: boolean;
  readonly max: number;
  readonly remaining: number;
  readonly retryAfterSeconds: number;
}

export type RateLimitCharge = (budget: RateLimitBudget) => Promise<RateLimitVerdict>;

/**
 * Counts one call of `request`'s caller against a budget chosen by the caller (an MCP tool call
 * against writes or reads), on the same counters as the REST routes. Undefined when no limit is
 * installed.
 */
export function rateLimitCharge(request: FastifyRequest): RateLimitCharge | undefined {
  if (!request.server.hasDecorator('createRateLimit')) return undefined;
  const check = request.server.createRateLimit();
  return async (budget) => {
    // A stand-in, so concurrent calls of one request never see each other's budget.
    const standIn = Object.create(request, { [BUDGET]: { value: budget } }) as Charged;
    const result = await check(standIn);
    if (result.isAllowed) return { limited: false, max: 0, remaining: 0, retryAfterSeconds: 0 };
    return {
      limited: result.isExceeded,
      max: result.max,
      remaining: result.remaining,
      retryAfterSeconds: Math.max(1, result.ttlInSeconds),
    };
  };
}
