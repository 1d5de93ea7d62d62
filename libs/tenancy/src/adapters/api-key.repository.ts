import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { ApiKeySource, ApiKeySummary } from '../domain/api-key';
import { normalizeScopes, type Scope } from '../domain/principal';
import type { TenantQuotaOverrides } from '../domain/tenant-quotas';
import { isUuid } from '../domain/user';

interface SummaryRow {
  id: string;
  user_id: string;
  username: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  source: ApiKeySource;
  expires_at: Date | null;
  default_visibility: 'team' | 'private' | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
  created_iso: string;
  replaced_by: string | null;
}

/** A key found by its hash, with what authentication decides on computed by the database clock. */
export interface KeyForAuthentication {
  readonly id: string;
  readonly tenantId: string;
  readonly tenantSlug: string;
  readonly userId: string;
  readonly username: string;
  readonly scopes: readonly Scope[];
  readonly source: ApiKeySource;
  readonly expiresAt: Date | null;
  readonly defaultVisibility: 'team' | 'private' | null;
  readonly revoked: boolean;
  readonly expired: boolean;
  readonly userDisabled: boolean;
  /** last_used_at is older than the throttle window (or unset). */
  readonly touchDue: boolean;
  /** The tenant's own quotas (null: the configured default). */
  readonly quotas: TenantQuotaOverrides;
}

export interface AuthRow {
  id: string;
  tenant_id: string;
  tenant_slug: string;
  user_id: string;
  username: string;
  scopes: string[];
  source: ApiKeySource;
  expires_at: Date | null;
  default_visibility: 'team' | 'private' | null;
  revoked: boolean;
  expired: boolean;
  user_disabled: boolean;
  touch_due: boolean;
  max_memories: string | null;
  max_memory_bytes: string | null;
  max_sessions_per_day: number | null;
}

const orNull = (value: string | number | null) => (value === null ? null : Number(value));

const SUMMARY_COLUMNS = `k.id, k.user_id, u.username, k.name, k.key_prefix, k.scopes, k.source,
  k.expires_at, k.default_visibility, k.revoked_at, k.last_used_at, k.created_at, k.replaced_by,
  ${isoTimestamp('k.created_at')} AS created_iso`;

/** A key of the tenant with what rotation decides on, computed by the database clock. */
export interface KeyForRotation extends ApiKeySummary {
  readonly active: boolean;
  readonly userDisabled: boolean;
}

/** Where a page of keys starts: after this (username, creation time, id). */
export type KeyPageKey = readonly [string, string, string];

export interface NewManagedKey {
  readonly userId: string;
  readonly name: string;
  readonly hash: Buffer;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date | null;
  readonly defaultVisibility: 'team' | 'private' | null;
  readonly createdBy: string | null;
}

@Injectable()
export class ApiKeyRepository {
  /** System path: the tenant is not known until the key is. One lookup on the unique hash index. */
  async findForAuthentication(
    tx: Tx,
    hash: Buffer,
    touchAfterSeconds: number,
  ): Promise<KeyForAuthentication | null> {
    const { rows } = await tx.query<AuthRow>(`${AUTH_SELECT} WHERE k.key_hash = $1`, [
      hash,
      touchAfterSeconds,
    ]);
    return rows[0] ? toKeyForAuthentication(rows[0]) : null;
  }

  /** The key an identity provider's sign-in holds (`user_identities`), found by issuer and subject. */
  async findForIdentity(
    tx: Tx,
    identity: { issuer: string; subject: string; tenantId: string },
    touchAfterSeconds: number,
  ): Promise<KeyForAuthentication | null> {
    const { rows } = await tx.query<AuthRow>(
      `${AUTH_SELECT}
         JOIN user_identities i ON i.key_id = k.id AND i.tenant_id = k.tenant_id
        WHERE i.issuer = $3 AND i.subject = $4 AND i.tenant_id = $1`,
      [identity.tenantId, touchAfterSeconds, identity.issuer, identity.subject],
    );
    return rows[0] ? toKeyForAuthentication(rows[0]) : null;
  }

  /**
   * Gives an identity (issuer, subject) of the tenant a key of its own (`source = 'oidc'`, a random
   * hash no one is given) and binds it to `userId`. When another request bound it a moment before,
   * that binding stands and nothing is written.
   */
  async bindIdentity(
    tx: Tx,
    identity: {
      issuer: string;
      subject: string;
      tenantId: string;
      userId: string;
      email: string | null;
      scopes: readonly Scope[];
    },
  ): Promise<void> {
    await tx.query(
      `WITH key AS (
         INSERT INTO api_keys (tenant_id, user_id, name, key_hash, key_prefix, scopes, source)
         SELECT $1, $2, $3, $8::bytea, 'sign-in', $4, 'oidc'
          WHERE NOT EXISTS (SELECT 1 FROM user_identities
                             WHERE issuer = $5 AND subject = $6 AND tenant_id = $1)
         RETURNING id
       )
       INSERT INTO user_identities (issuer, subject, tenant_id, user_id, key_id, email)
       SELECT $5, $6, $1, $2, key.id, $7 FROM key
       ON CONFLICT (issuer, subject, tenant_id) DO NOTHING`,
      [
        identity.tenantId,
        identity.userId,
        `sign-in: ${new URL(identity.issuer).host}`.slice(0, 100),
        [...identity.scopes],
        identity.issuer,
        identity.subject,
        identity.email,
        // Never handed out: the identity's tokens, not a key, authenticate as it.
        randomBytes(32),
      ],
    );
  }

  /** Re-checks the window in SQL so that concurrent requests and replicas write at most once. */
  async touchLastUsed(tx: Tx, keyId: string, touchAfterSeconds: number): Promise<void> {
    await tx.query(
      `UPDATE api_keys SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2))`,
      [keyId, touchAfterSeconds],
    );
  }

  async insert(scope: TenantScope, tx: Tx, key: NewManagedKey): Promise<ApiKeySummary> {
    const { rows } = await tx.query<SummaryRow>(
      `WITH k AS (
         INSERT INTO api_keys (tenant_id, user_id, name, key_hash, key_prefix, scopes, source, expires_at, created_by,
                               default_visibility)
         VALUES ($1, $2, $3, $4, $5, $6, 'managed', $7, $8, $9)
         RETURNING *
       )
       SELECT ${SUMMARY_COLUMNS} FROM k JOIN users u ON u.id = k.user_id`,
      [
        scope.tenantId,
        key.userId,
        key.name,
        key.hash,
        key.prefix,
        [...key.scopes],
        key.expiresAt,
        key.createdBy,
        key.defaultVisibility,
      ],
    );
    return toSummary(rows[0]);
  }

  /** Keys by (username, creation, id) after `after`; `limit` rows at most, each with its page key. */
  async list(
    scope: TenantScope,
    tx: Tx,
    filter: { userId?: string; after: KeyPageKey | null; limit: number },
  ): Promise<{ key: ApiKeySummary; pageKey: KeyPageKey }[]> {
    const [username, createdAt, id] = filter.after ?? [null, null, null];
    const { rows } = await tx.query<SummaryRow>(
      `SELECT ${SUMMARY_COLUMNS}
         FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.tenant_id = $1 AND ($2::uuid IS NULL OR k.user_id = $2::uuid)
          AND ($3::text IS NULL OR (u.username, k.created_at, k.id) > ($3::text, $4::timestamptz, $5::uuid))
        ORDER BY u.username, k.created_at, k.id
        LIMIT $6`,
      [scope.tenantId, filter.userId ?? null, username, createdAt, id, filter.limit],
    );
    return rows.map((row) => ({
      key: toSummary(row),
      pageKey: [row.username, row.created_iso, row.id] as const,
    }));
  }

  /**
   * The tenant's keys named by `ref`: the key id, or the display prefix `keys list` shows (which a
   * few keys could share). Locked, so a rotation or revocation of the same key waits for this one.
   */
  async findByRef(scope: TenantScope, tx: Tx, ref: string): Promise<KeyForRotation[]> {
    const { rows } = await tx.query<SummaryRow & { active: boolean; user_disabled: boolean }>(
      `SELECT ${SUMMARY_COLUMNS},
              (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()) AND k.replaced_by IS NULL) AS active,
              u.disabled_at IS NOT NULL AS user_disabled
         FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.tenant_id = $1 AND (k.id = $2::uuid OR ($2::uuid IS NULL AND k.key_prefix = $3))
        ORDER BY k.created_at
        LIMIT 10
        FOR UPDATE OF k`,
      [scope.tenantId, isUuid(ref) ? ref : null, ref],
    );
    return rows.map((row) => ({ ...toSummary(row), active: row.active, userDisabled: row.user_disabled }));
  }

  /**
   * Marks a key replaced by `replacement`; it keeps working until `graceSeconds` from now (or its
   * own earlier expiry), then expires like any key.
   */
  async markRotated(
    scope: TenantScope,
    tx: Tx,
    rotation: { keyId: string; replacement: string; graceSeconds: number },
  ): Promise<ApiKeySummary> {
    const { rows } = await tx.query<SummaryRow>(
      `WITH k AS (
         UPDATE api_keys
            SET replaced_by = $3,
                expires_at = LEAST(coalesce(expires_at, 'infinity'), now() + make_interval(secs => $4))
          WHERE tenant_id = $1 AND id = $2
          RETURNING *
       )
       SELECT ${SUMMARY_COLUMNS} FROM k JOIN users u ON u.id = k.user_id`,
      [scope.tenantId, rotation.keyId, rotation.replacement, rotation.graceSeconds],
    );
    return toSummary(rows[0]);
  }

  /**
   * Revokes a key of this tenant; revoking twice keeps the first time. The reason becomes 'admin'
   * even for a key the env bootstrap had revoked, so that re-adding it to the env cannot restore it.
   * Returns null when no such key is visible to the tenant (another tenant's key included).
   */
  async revoke(scope: TenantScope, tx: Tx, keyId: string): Promise<ApiKeySummary | null> {
    if (!isUuid(keyId)) return null;
    const { rows } = await tx.query<SummaryRow>(
      `WITH k AS (
         UPDATE api_keys
            SET revoked_at = coalesce(revoked_at, now()),
                revoked_reason = 'admin'
          WHERE tenant_id = $1 AND id = $2
          RETURNING *
       )
       SELECT ${SUMMARY_COLUMNS} FROM k JOIN users u ON u.id = k.user_id`,
      [scope.tenantId, keyId],
    );
    return rows[0] ? toSummary(rows[0]) : null;
  }
}

function toSummary(row: SummaryRow): ApiKeySummary {
  return {
    id: row.id,
    userId: row.user_id,
    username: row.username,
    name: row.name,
    prefix: row.key_prefix,
    scopes: normalizeScopes(row.scopes),
    source: row.source,
    expiresAt: row.expires_at,
    defaultVisibility: row.default_visibility,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    createdAt: row.created_at,
    replacedBy: row.replaced_by,
  };
}

/**
 * Authentication's read of a key (`$2`: the last-used throttle window in seconds); the caller adds
 * its WHERE.
 */
export const AUTH_SELECT = `SELECT k.id, k.tenant_id, t.slug AS tenant_slug, k.user_id, u.username, k.scopes, k.source,
              k.expires_at, k.default_visibility, k.revoked_at IS NOT NULL AS revoked,
              (k.expires_at IS NOT NULL AND k.expires_at <= now()) AS expired,
              u.disabled_at IS NOT NULL AS user_disabled,
              (k.last_used_at IS NULL OR k.last_used_at < now() - make_interval(secs => $2)) AS touch_due,
              t.max_memories, t.max_memory_bytes, t.max_sessions_per_day
         FROM api_keys k
         JOIN users u ON u.id = k.user_id
         JOIN tenants t ON t.id = k.tenant_id`;

export function toKeyForAuthentication(row: AuthRow): KeyForAuthentication {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    tenantSlug: row.tenant_slug,
    userId: row.user_id,
    username: row.username,
    scopes: normalizeScopes(row.scopes),
    source: row.source,
    expiresAt: row.expires_at,
    defaultVisibility: row.default_visibility,
    revoked: row.revoked,
    expired: row.expired,
    userDisabled: row.user_disabled,
    touchDue: row.touch_due,
    quotas: {
      maxMemories: orNull(row.max_memories),
      maxMemoryBytes: orNull(row.max_memory_bytes),
      maxSessionsPerDay: orNull(row.max_sessions_per_day),
    },
  };
}
