import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from './api-key-format';
import { planEnvKeys } from './env-key-plan';
import { ALL_SCOPES, MEMBER_SCOPES } from './principal';
import { TenancyErrorCode } from './tenancy.errors';

describe('planEnvKeys', () => {
  it('maps API_KEYS to members, API_KEY to "default" and ADMIN_API_KEY to an admin', () => {
    const plan = planEnvKeys({
      defaultTenant: 'default',
      apiKeys: { bob: 'bob-key-22', alice: 'alice-key-1' },
      apiKey: 'default-key',
      adminApiKey: 'admin-key-1',
    });
    expect(plan.users).toEqual([
      { username: 'admin', isAdmin: true },
      { username: 'alice', isAdmin: false },
      { username: 'bob', isAdmin: false },
      { username: 'default', isAdmin: false },
    ]);
    const byUser = Object.fromEntries(plan.keys.map((k) => [k.username, k]));
    expect(byUser.alice.scopes).toEqual(MEMBER_SCOPES);
    expect(byUser.default.origin).toBe('API_KEY');
    expect(byUser.admin.scopes).toEqual(ALL_SCOPES);
    expect(byUser.alice.hash.equals(hashApiKey('alice-key-1'))).toBe(true);
    expect(byUser.alice.prefix).not.toContain('alice-key');
  });

  it('plans nothing when no key is configured', () => {
    expect(planEnvKeys({ defaultTenant: 'default', apiKeys: {} })).toEqual({ users: [], keys: [] });
  });

  it('accepts a generated key in the env and refuses a malformed msk_ key or a shared key', () => {
    expect(planEnvKeys({ defaultTenant: 'd', apiKeys: { ci: generateApiKey() } }).keys).toHaveLength(1);
    expect(() => planEnvKeys({ defaultTenant: 'd', apiKeys: { ci: 'msk_not_a_real_key' } })).toThrow(
      expect.objectContaining({
        code: TenancyErrorCode.InvalidInput,
        message: expect.stringContaining('"ci"'),
      }),
    );
    expect(() =>
      planEnvKeys({ defaultTenant: 'd', apiKeys: { a: 'same-key-1' }, adminApiKey: 'same-key-1' }),
    ).toThrow(/same key is configured for "a" and "admin"/);
  });
});
