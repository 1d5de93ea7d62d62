import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { ALL_SCOPES, type Principal } from '@app/tenancy';

/**
 * One tenant with `users` members, inserted directly (the bench connects as the schema owner, which
 * bypasses RLS). The principals are what the auth guard would build from those users' keys.
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
    scopes: ALL_SCOPES,
  }));
}
