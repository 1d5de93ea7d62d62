import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { TenantUsageRepository } from '../adapters/tenant-usage.repository';
import type { Principal } from '../domain/principal';
import { nextUtcDay, UNLIMITED_QUOTAS, type TenantQuotas, type TenantUsage } from '../domain/tenant-quotas';

export interface TenantUsageReport {
  readonly tenant: string;
  readonly usage: TenantUsage;
  /** 0 = unlimited. */
  readonly quotas: TenantQuotas;
  /** When the sessions-per-day count starts again. */
  readonly sessionsResetAt: Date;
}

/** The caller's tenant: what it uses against each of its quotas. Any authenticated key may ask. */
@Injectable()
export class GetTenantUsageUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TenantUsageRepository) private readonly usage: TenantUsageRepository,
  ) {}

  async execute(principal: Principal): Promise<TenantUsageReport> {
    const usage = await this.tx.inTenant(principal, (tx) => this.usage.read(principal, tx));
    return {
      tenant: principal.tenantSlug,
      usage,
      quotas: principal.quotas ?? UNLIMITED_QUOTAS,
      sessionsResetAt: nextUtcDay(),
    };
  }
}
