import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { TenantRepository } from '../adapters/tenant.repository';
import type { Actor } from '../domain/actor';
import type { TenantSettings, TenantSettingsPatch } from '../domain/tenant';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { AuditWriter } from './audit-writer';
import { tenantAdminScope } from './tenant-settings';

/** Changes settings of the admin's own tenant; the change is audited with the values set. */
@Injectable()
export class UpdateTenantSettingsUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TenantRepository) private readonly tenants: TenantRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, patch: TenantSettingsPatch): Promise<TenantSettings> {
    const scope = tenantAdminScope(actor);
    return this.tx.inTenant(scope, async (tx) => {
      const settings = await this.tenants.updateSettings(scope, tx, patch);
      if (!settings) throw new TenancyError(TenancyErrorCode.TenantNotFound, 'Tenant not found');
      await this.audit.record(actor, tx, {
        action: 'tenant.settings.update',
        targetType: 'tenant',
        targetId: actor.tenantId,
        details: {
          team_session_visibility: patch.teamSessionVisibility,
          admin_private_access: patch.adminPrivateAccess,
          review_team_memories: patch.reviewTeamMemories,
          proposal_auto_accept_hours: patch.proposalAutoAcceptHours,
          capture_branch_scope: patch.captureBranchScope,
        },
      });
      return settings;
    });
  }
}
