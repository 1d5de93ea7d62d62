import { DomainError } from '@app/kernel';
import type { RateLimitBudget } from './rate-limit-budgets';

/** 429 `rate_limited`: the key (or address) spent its budget for this minute. */
export class RateLimitedError extends DomainError<'rate_limited'> {
  constructor(budget: RateLimitBudget, max: number, retryAfterSeconds: number) {
    super(
      'too_many_requests',
      'rate_limited',
      `Rate limit exceeded: ${max} ${describe(budget)} per minute for this key; retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
    this.name = 'RateLimitedError';
  }
}

function describe(budget: RateLimitBudget): string {
  switch (budget) {
    case 'writes':
      return 'writes';
    case 'reads':
      return 'reads';
    case 'admin':
      return 'admin requests';
    case 'events':
      return 'session events requests';
  }
}
