import type { RateLimitBudgets } from '@app/config';
import type { Scope } from '@app/tenancy';

/** What a request counts against; each has its own per-minute budget (RATE_LIMIT_*_PER_MINUTE). */
export type RateLimitBudget = keyof RateLimitBudgets;

export const RATE_LIMIT_BUDGETS: readonly RateLimitBudget[] = ['writes', 'reads', 'admin', 'events'];

/** One minute: every budget is per key (or address) and minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * The budget a route or MCP tool counts against, from the scopes it requires: admin routes against
 * `admin`, anything that changes data (`memories:write`, `sessions:write`) against `writes`, the
 * rest (reads, secret reveals, key checks) against `reads`. Session event ingest declares `events`.
 */
export function budgetForScopes(scopes: readonly Scope[]): RateLimitBudget {
  if (scopes.includes('admin')) return 'admin';
  if (scopes.some((s) => s === 'memories:write' || s === 'sessions:write' || s === 'code-events:write'))
    return 'writes';
  return 'reads';
}

/** A route's budget: what its @ApiRoute declares, else what its scopes say. */
export function budgetOfRoute(route: {
  readonly options: { readonly rateLimit?: RateLimitBudget };
  readonly scopes: readonly Scope[];
}): RateLimitBudget {
  return route.options.rateLimit ?? budgetForScopes(route.scopes);
}

/** The budget a counter key belongs to: keys are `<budget>:<identity>`. */
export function budgetOfKey(key: string): RateLimitBudget {
  const budget = key.slice(0, key.indexOf(':')) as RateLimitBudget;
  return RATE_LIMIT_BUDGETS.includes(budget) ? budget : 'reads';
}

/** Whether any budget limits anything (all 0: the limiter is not installed). */
export function anyBudgetLimited(budgets: RateLimitBudgets): boolean {
  return RATE_LIMIT_BUDGETS.some((budget) => budgets[budget] > 0);
}
