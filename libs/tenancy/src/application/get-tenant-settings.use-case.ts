import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { TenantRepository } from '../adapters/tenant.repository';
import type { Actor } from '../domain/actor';
import type { TenantSettings } from '../domain/tenant';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { tenantAdminScope } from './tenant-settings';

/** The settings of the admin's own tenant. */
@Injectable()
export class GetTenantSettingsUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TenantRepository) private readonly tenants: TenantRepository,
  ) {}

  async execute(actor: Actor): Promise<TenantSettings> {
    const scope = tenantAdminScope(actor);
    const settings = await this.tx.inTenant(scope, (tx) => this.tenants.settings(scope, tx));
    if (!settings) throw new TenancyError(TenancyErrorCode.TenantNotFound, 'Tenant not found');
    return settings;
  }
}
