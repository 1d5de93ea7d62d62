import { randomUUID } from 'node:crypto';
import { type NewMemory } from '@app/memories';
import { MEMBER_SCOPES, type Principal } from '@app/tenancy';
import type { TestTenant } from './test-database';

/** A store input with the seed's defaults; override what a test cares about. */
export function newMemory(content: string, overrides: Partial<NewMemory> = {}): NewMemory {
  return {
    content,
    category: 'facts',
    tags: [],
    expandedKeywords: '',
    importance: 0.5,
    project: null,
    ...overrides,
  };
}

/** A new user of the tenant, acting as an env-bootstrapped member would (every member scope). */
export async function memberPrincipal(tenant: TestTenant, name: string): Promise<Principal> {
  return {
    ...(await tenant.addUser(name)),
    tenantSlug: tenant.slug,
    keyId: randomUUID(),
    scopes: MEMBER_SCOPES,
  };
}
