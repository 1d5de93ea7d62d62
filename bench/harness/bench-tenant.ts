import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { displayPrefixOf, generateApiKey, hashApiKey, MEMBER_SCOPES, type Principal } from '@app/tenancy';

/**
 * One tenant with `users` members, inserted directly (the bench connects as the schema owner, which
 * bypasses RLS). The principals are what the auth guard would build from those users' keys: member
 * scopes, as the env bootstrap gives users (an admin key would read the whole tenant).
 */
export async function createBenchTenant(
  pg: Client,
  options: { slug: string; users: number },
): Promise<Principal[]> {
  const { rows: tenants } = await pg.query<{ id: string }>(
    `INSERT INTO tenants (slug, name) VALUES ($1, $1) RETURNING id`,
    [options.slug],
  );
  const tenantId = tenants[0].id;
  const usernames = Array.from({ length: options.users }, (_, i) => `user-${String(i).padStart(3, '0')}`);
  const { rows } = await pg.query<{ id: string; username: string }>(
    `INSERT INTO users (tenant_id, username) SELECT $1, u FROM unnest($2::text[]) AS u RETURNING id, username`,
    [tenantId, usernames],
  );
  const byName = new Map(rows.map((r) => [r.username, r.id]));
  return usernames.map((username) => ({
    tenantId,
    tenantSlug: options.slug,
    userId: byName.get(username) as string,
    username,
    // No key row is needed: use cases only copy the key id into the audit log.
    keyId: randomUUID(),
    scopes: MEMBER_SCOPES,
  }));
}

/**
 * A managed API key (member scopes) for each principal, stored the way the admin API stores one
 * (sha256 only), for the runs that go through HTTP. Answers user id → plaintext key.
 */
export async function createBenchKeys(
  pg: Client,
  principals: readonly Principal[],
): Promise<Map<string, string>> {
  const keys = new Map(principals.map((p) => [p.userId, generateApiKey()]));
  await pg.query(
    `INSERT INTO api_keys (tenant_id, user_id, name, key_hash, key_prefix, scopes, source)
     SELECT t, u, 'bench', h, p, $5::text[], 'managed'
       FROM unnest($1::uuid[], $2::uuid[], $3::bytea[], $4::text[]) AS x(t, u, h, p)`,
    [
      principals.map((p) => p.tenantId),
      principals.map((p) => p.userId),
      principals.map((p) => hashApiKey(keys.get(p.userId) as string)),
      principals.map((p) => displayPrefixOf(keys.get(p.userId) as string)),
      [...MEMBER_SCOPES],
    ],
  );
  return keys;
}
