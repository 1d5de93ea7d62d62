import { randomBytes, randomUUID } from 'node:crypto';
import { inject } from 'vitest';

export interface TeamFixture {
  readonly tenant: string;
  readonly keys: { alice: string; bob: string; admin: string };
  readonly env: Record<string, string>;
}

/** Env for an API/worker pair serving a fresh tenant with alice, bob and an admin (env-bootstrapped keys). */
export function teamFixture(overrides: Record<string, string> = {}): TeamFixture {
  const tenant = `e2e-${randomUUID().slice(0, 8)}`;
  const keys = {
    alice: `alice-${randomBytes(12).toString('hex')}`,
    bob: `bob-${randomBytes(12).toString('hex')}`,
    admin: `admin-${randomBytes(12).toString('hex')}`,
  };
  const env = {
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    QUEUE_PREFIX: `q${randomBytes(4).toString('hex')}`,
    DEFAULT_TENANT: tenant,
    API_KEYS: JSON.stringify({ alice: keys.alice, bob: keys.bob }),
    ADMIN_API_KEY: keys.admin,
    RATE_LIMIT_PER_MINUTE: '0',
    // Suites that check per-user isolation store private memories unless they ask for team ones;
    // the team-visibility suite uses the shipped default (team).
    DEFAULT_VISIBILITY: 'private',
    ...overrides,
  };
  return { tenant, keys, env };
}
