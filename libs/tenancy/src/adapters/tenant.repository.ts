import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import type { TenantSettings, TenantSettingsPatch } from '../domain/tenant';

export interface TenantRef {
  readonly id: string;
  readonly slug: string;
}

const SETTINGS =
  'team_session_visibility, admin_private_access, review_team_memories, proposal_auto_accept_hours, capture_branch_scope';

interface SettingsRow {
  team_session_visibility: boolean;
  admin_private_access: boolean;
  review_team_memories: boolean;
  proposal_auto_accept_hours: number | null;
  capture_branch_scope: boolean;
}

const toSettings = (row: SettingsRow): TenantSettings => ({
  teamSessionVisibility: row.team_session_visibility,
  adminPrivateAccess: row.admin_private_access,
  reviewTeamMemories: row.review_team_memories,
  proposalAutoAcceptHours: row.proposal_auto_accept_hours,
  captureBranchScope: row.capture_branch_scope,
});

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
    const { rows } = await tx.query<SettingsRow>(`SELECT ${SETTINGS} FROM tenants WHERE id = $1`, [
      scope.tenantId,
    ]);
    return rows[0] ? toSettings(rows[0]) : null;
  }

  /** Changes the given settings; null when the row is not the caller's to change. */
  async updateSettings(
    scope: TenantScope,
    tx: Tx,
    patch: TenantSettingsPatch,
  ): Promise<TenantSettings | null> {
    const { rows } = await tx.query<SettingsRow>(
      `UPDATE tenants SET team_session_visibility = coalesce($2, team_session_visibility),
                          admin_private_access = coalesce($3, admin_private_access),
                          review_team_memories = coalesce($4, review_team_memories),
                          proposal_auto_accept_hours = CASE WHEN $5 THEN $6::integer ELSE proposal_auto_accept_hours END,
                          capture_branch_scope = coalesce($7, capture_branch_scope)
        WHERE id = $1
        RETURNING ${SETTINGS}`,
      [
        scope.tenantId,
        patch.teamSessionVisibility ?? null,
        patch.adminPrivateAccess ?? null,
        patch.reviewTeamMemories ?? null,
        patch.proposalAutoAcceptHours !== undefined,
        patch.proposalAutoAcceptHours ?? null,
        patch.captureBranchScope ?? null,
      ],
    );
    return rows[0] ? toSettings(rows[0]) : null;
  }
}
