import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import type { TenantSettings, TenantSettingsPatch } from '../domain/tenant';

export interface TenantRef {
  readonly id: string;
  readonly slug: string;
}

/**
 * Tenants are looked up before any tenant context exists, so the lookups run in system transactions;
 * the settings are read and changed inside the tenant (an admin, by row-level security, changes only
 * its own tenant's row).
 */
@Injectable()
export class TenantRepository {
  async upsertBySlug(tx: Tx, slug: string): Promise<TenantRef> {
    // DO UPDATE (not DO NOTHING) so RETURNING yields the row whether or not it already existed.
    const { rows } = await tx.query<TenantRef>(
      `INSERT INTO tenants (slug, name) VALUES ($1, $1)
       ON CONFLICT (slug) DO UPDATE SET slug = EXCLUDED.slug
       RETURNING id, slug`,
      [slug],
    );
    return rows[0];
  }

  async findBySlug(tx: Tx, slug: string): Promise<TenantRef | null> {
    const { rows } = await tx.query<TenantRef>(`SELECT id, slug FROM tenants WHERE slug = $1`, [slug]);
    return rows[0] ?? null;
  }

  async settings(scope: TenantScope, tx: Tx): Promise<TenantSettings | null> {
    const { rows } = await tx.query<{ team_session_visibility: boolean }>(
      `SELECT team_session_visibility FROM tenants WHERE id = $1`,
      [scope.tenantId],
    );
    return rows[0] ? { teamSessionVisibility: rows[0].team_session_visibility } : null;
  }

  /** Changes the given settings; null when the row is not the caller's to change. */
  async updateSettings(
    scope: TenantScope,
    tx: Tx,
    patch: TenantSettingsPatch,
  ): Promise<TenantSettings | null> {
    const { rows } = await tx.query<{ team_session_visibility: boolean }>(
      `UPDATE tenants SET team_session_visibility = coalesce($2, team_session_visibility)
        WHERE id = $1
        RETURNING team_session_visibility`,
      [scope.tenantId, patch.teamSessionVisibility ?? null],
    );
    return rows[0] ? { teamSessionVisibility: rows[0].team_session_visibility } : null;
  }
}
