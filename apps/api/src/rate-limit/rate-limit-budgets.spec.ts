import { describe, expect, it } from 'vitest';
import { anyBudgetLimited, budgetForScopes, budgetOfKey, budgetOfRoute } from './rate-limit-budgets';

describe('rate-limit budgets', () => {
  it('counts a route by what it may do: admin, then any write scope, else a read', () => {
    expect(budgetForScopes(['admin'])).toBe('admin');
    expect(budgetForScopes(['memories:write'])).toBe('writes');
    expect(budgetForScopes(['sessions:write'])).toBe('writes');
    expect(budgetForScopes(['memories:read'])).toBe('reads');
    expect(budgetForScopes(['secrets:read'])).toBe('reads');
    expect(budgetForScopes([])).toBe('reads');
    expect(budgetOfRoute({ options: { rateLimit: 'events' }, scopes: ['sessions:write'] })).toBe('events');
    expect(budgetOfRoute({ options: {}, scopes: ['sessions:write'] })).toBe('writes');
  });

  it('reads the budget back from a counter key, a group suffix included', () => {
    expect(budgetOfKey('writes:key:1b2c')).toBe('writes');
    expect(budgetOfKey('reads:addr:10.0.0.7duplicates')).toBe('reads');
    expect(budgetOfKey('events:key:1b2c')).toBe('events');
    expect(budgetOfKey('unknown:key:1')).toBe('reads');
  });

  it('installs the limiter only when some budget is limited', () => {
    expect(anyBudgetLimited({ writes: 0, reads: 0, admin: 0, events: 0 })).toBe(false);
    expect(anyBudgetLimited({ writes: 0, reads: 0, admin: 0, events: 5 })).toBe(true);
  });
});
