import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import { isUuid, type User } from '../domain/user';

interface UserRow {
  id: string;
  tenant_id: string;
  username: string;
  display_name: string | null;
  is_admin: boolean;
  disabled_at: Date | null;
  created_at: Date;
}

const COLUMNS = `id, tenant_id, username, display_name, is_admin, disabled_at, created_at`;

/**
 * Users of one tenant. Every query filters by the scope's tenant explicitly, and row-level
 * security filters again, so a wrong filter here still cannot reach another tenant.
 */
@Injectable()
export class UserRepository {
  /** Returns null when the username is taken in this tenant. */
  async insert(
    scope: TenantScope,
    tx: Tx,
    input: { username: string; displayName: string | null; isAdmin: boolean },
  ): Promise<User | null> {
    const { rows } = await tx.query<UserRow>(
      `INSERT INTO users (tenant_id, username, display_name, is_admin) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, username) DO NOTHING
       RETURNING ${COLUMNS}`,
      [scope.tenantId, input.username, input.displayName, input.isAdmin],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  /** Users by username after `after` (exclusive); `limit` rows at most. */
  async list(scope: TenantScope, tx: Tx, page: { after: string | null; limit: number }): Promise<User[]> {
    const { rows } = await tx.query<UserRow>(
      `SELECT ${COLUMNS} FROM users
        WHERE tenant_id = $1 AND ($2::text IS NULL OR username > $2::text)
        ORDER BY username LIMIT $3`,
      [scope.tenantId, page.after, page.limit],
    );
    return rows.map(toUser);
  }

  /** Disables (keeping the first time) or enables a user; null when no such user is in the tenant. */
  async setDisabled(scope: TenantScope, tx: Tx, userId: string, disabled: boolean): Promise<User | null> {
    const { rows } = await tx.query<UserRow>(
      `UPDATE users SET disabled_at = CASE WHEN $3 THEN coalesce(disabled_at, now()) END
        WHERE tenant_id = $1 AND id = $2
        RETURNING ${COLUMNS}`,
      [scope.tenantId, userId, disabled],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  /** Finds a user by username or, when `ref` is a UUID, by id (an id match wins). */
  async findByRef(scope: TenantScope, tx: Tx, ref: string): Promise<User | null> {
    const { rows } = await tx.query<UserRow>(
      `SELECT ${COLUMNS} FROM users
        WHERE tenant_id = $1 AND (username = $2 OR id = $3::uuid)
        ORDER BY (id = $3::uuid) DESC NULLS LAST
        LIMIT 1`,
      [scope.tenantId, ref, isUuid(ref) ? ref : null],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    username: row.username,
    displayName: row.display_name,
    isAdmin: row.is_admin,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
  };
}
