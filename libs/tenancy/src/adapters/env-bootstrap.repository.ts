import { Injectable } from '@nestjs/common';
import { type Tx } from '@app/persistence';
import type { Scope } from '../domain/principal';

/** Two-int advisory lock key space, so it cannot collide with the migration lock (single bigint). */
const LOCK_CLASS = 0x6d656d73;
const LOCK_AUTH_BOOTSTRAP = 2;

export interface UpsertedRow {
  readonly id: string;
  readonly inserted: boolean;
}

export interface UpsertedEnvKey extends UpsertedRow {
  /** The key is in the env but an administrator revoked it; it stays revoked. */
  readonly revokedByAdmin: boolean;
}

export interface EnvKeyRow {
  readonly tenantId: string;
  readonly userId: string;
  readonly name: string;
  readonly hash: Buffer;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
}

/** SQL of the startup bootstrap. Runs in a system transaction (tenants are not known yet). */
@Injectable()
export class EnvBootstrapRepository {
  /** Serialises concurrent replicas so exactly one of them may generate the first admin key. */
  async lock(tx: Tx): Promise<void> {
    await tx.query(`SELECT pg_advisory_xact_lock($1, $2)`, [LOCK_CLASS, LOCK_AUTH_BOOTSTRAP]);
  }

  /** Creates the user or keeps it; an env admin stays admin, nobody is demoted by the env. */
  async upsertUser(
    tx: Tx,
    tenantId: string,
    user: { username: string; isAdmin: boolean },
  ): Promise<UpsertedRow> {
    const { rows } = await tx.query<UpsertedRow>(
      `INSERT INTO users (tenant_id, username, is_admin) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, username) DO UPDATE SET is_admin = users.is_admin OR EXCLUDED.is_admin
       RETURNING id, (xmax = 0) AS inserted`,
      [tenantId, user.username, user.isAdmin],
    );
    return rows[0];
  }

  /**
   * Inserts an env key or brings an existing env key of the same tenant in line with the env
   * (owner, scopes; restored if the bootstrap had revoked it). Returns null when the hash belongs
   * to a managed key or to another tenant, which the env must not take over.
   */
  async upsertEnvKey(tx: Tx, key: EnvKeyRow): Promise<UpsertedEnvKey | null> {
    const { rows } = await tx.query<UpsertedEnvKey>(
      `INSERT INTO api_keys (tenant_id, user_id, name, key_hash, key_prefix, scopes, source)
       SELECT $1::uuid, $2::uuid, $3::text, $4::bytea, $5::text, $6::text[], 'env'
        WHERE NOT EXISTS (SELECT 1 FROM api_key_hashes h WHERE h.key_hash = $4 AND h.tenant_id <> $1)
       ON CONFLICT (key_hash, tenant_id) DO UPDATE
          SET user_id = EXCLUDED.user_id,
              name = EXCLUDED.name,
              scopes = EXCLUDED.scopes,
              revoked_at = CASE WHEN api_keys.revoked_reason = 'admin' THEN api_keys.revoked_at END,
              revoked_reason = CASE WHEN api_keys.revoked_reason = 'admin' THEN 'admin' END
        WHERE api_keys.source = 'env' AND api_keys.tenant_id = EXCLUDED.tenant_id
       RETURNING id, (xmax = 0) AS inserted, revoked_reason IS NOT NULL AS "revokedByAdmin"`,
      [key.tenantId, key.userId, key.name, key.hash, key.prefix, [...key.scopes]],
    );
    return rows[0] ?? null;
  }

  /** Revokes this tenant's active env keys that are no longer configured (rotation or removal). */
  async revokeEnvKeysExcept(tx: Tx, tenantId: string, keep: readonly Buffer[]): Promise<{ id: string }[]> {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE api_keys SET revoked_at = now(), revoked_reason = 'env_removed'
        WHERE tenant_id = $1 AND source = 'env' AND revoked_at IS NULL AND key_hash <> ALL($2::bytea[])
        RETURNING id`,
      [tenantId, [...keep]],
    );
    return rows;
  }

  /** Whether any tenant has a key that could authenticate right now. */
  async hasActiveKey(tx: Tx): Promise<boolean> {
    const { rows } = await tx.query<{ found: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()) AND u.disabled_at IS NULL
       ) AS found`,
    );
    return rows[0].found;
  }
}
