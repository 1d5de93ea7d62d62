import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { client } from '../../support/http-client';
import { adminKeyInOtherTenant } from '../../support/other-tenant';
import type { Actor } from './world';

const MEMBER_SCOPES = ['memories:read', 'memories:write', 'secrets:read', 'sessions:write'];
const WITHOUT_SECRETS = MEMBER_SCOPES.filter((s) => s !== 'secrets:read');

/**
 * The people of one lane: tenant A with alice (plus a second key of hers without `secrets:read`),
 * bob, dave and an admin; tenant B with carol, another user named bob, and its admin. Usernames
 * repeat across tenants on purpose: a share with "bob" must reach tenant A's bob only.
 */
export async function laneActors(apiUrl: string, lane: number): Promise<Actor[]> {
  const suffix = randomBytes(3).toString('hex');
  const tenantA = `iso-${suffix}-${lane}a`;
  const tenantB = `iso-${suffix}-${lane}b`;
  const [rootA, rootB] = await Promise.all(
    [tenantA, tenantB].map((t) => adminKeyInOtherTenant(t, ['admin', ...MEMBER_SCOPES].join(','))),
  );
  const member = async (adminKey: string, username: string, scopes: string[], create = true) => {
    const admin = client(apiUrl, adminKey);
    if (create) expect((await admin.post('/api/admin/users', { username })).status).toBe(201);
    const key = await admin.post<{ key: string }>(`/api/admin/users/${username}/keys`, { scopes });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    return key.body.key;
  };
  const [alice, bob, dave, carol, bobB] = await Promise.all([
    member(rootA, 'alice', MEMBER_SCOPES),
    member(rootA, 'bob', MEMBER_SCOPES),
    member(rootA, 'dave', MEMBER_SCOPES),
    member(rootB, 'carol', MEMBER_SCOPES),
    member(rootB, 'bob', MEMBER_SCOPES),
  ]);
  const aliceNoSecrets = await member(rootA, 'alice', WITHOUT_SECRETS, false);
  // The model's admins read every memory of their tenant: both tenants allow it (see transport.ts).
  for (const root of [rootA, rootB]) {
    const allowed = await client(apiUrl, root).request('PATCH', '/api/admin/settings', {
      admin_private_access: true,
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  }
  const actor = (name: string, key: string, tenant: string, user: string, admin = false, secrets = true) =>
    ({ name, key, tenant, user, admin, secrets }) satisfies Actor;
  return [
    actor('alice', alice, tenantA, 'alice'),
    actor('bob', bob, tenantA, 'bob'),
    actor('dave', dave, tenantA, 'dave'),
    actor('adminA', rootA, tenantA, 'root', true),
    actor('alice-no-secrets', aliceNoSecrets, tenantA, 'alice', false, false),
    actor('carol', carol, tenantB, 'carol'),
    actor('bobB', bobB, tenantB, 'bob'),
    actor('adminB', rootB, tenantB, 'root', true),
  ];
}

/** Usernames a share may name: tenant A's, tenant B's (unknown in A, and the other way round), nobody's. */
export const SHARE_TARGETS = ['alice', 'bob', 'dave', 'root', 'carol', 'nobody'] as const;

/** Which usernames exist in each tenant of a lane (by the actors). */
export function usersByTenant(actors: readonly Actor[]): Map<string, Set<string>> {
  const users = new Map<string, Set<string>>();
  for (const a of actors) {
    if (!users.has(a.tenant)) users.set(a.tenant, new Set());
    users.get(a.tenant)?.add(a.user);
  }
  return users;
}

/** A GitHub-token-shaped secret, made at run time. */
export const ghToken = () =>
  `ghp_${randomBytes(30)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .slice(0, 36)}`;
