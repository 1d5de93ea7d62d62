import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { TenantRepository } from '../adapters/tenant.repository';
import type { SystemActor } from '../domain/actor';
import { TENANT_SLUG_PATTERN, TENANT_SLUG_RULE } from '../domain/tenant';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

export interface ResolveSystemActorInput {
  readonly tenantSlug: string;
  readonly via: SystemActor['via'];
  /** Create the tenant when it does not exist yet (`cli users create` on a fresh database). */
  readonly createTenant?: boolean;
}

/** Gives an operator (the CLI) an actor inside one tenant, found by slug. */
@Injectable()
export class ResolveSystemActorUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TenantRepository) private readonly tenants: TenantRepository,
  ) {}

  async execute(input: ResolveSystemActorInput): Promise<SystemActor> {
    if (!TENANT_SLUG_PATTERN.test(input.tenantSlug)) {
      throw new TenancyError(
        TenancyErrorCode.InvalidInput,
        `tenant "${input.tenantSlug}" ${TENANT_SLUG_RULE}`,
      );
    }
    const tenant = await this.tx.asSystem((tx) =>
      input.createTenant
        ? this.tenants.upsertBySlug(tx, input.tenantSlug)
        : this.tenants.findBySlug(tx, input.tenantSlug),
    );
    // Only the CLI names a tenant, so an unknown slug is bad input rather than a missing resource.
    if (!tenant)
      throw new TenancyError(TenancyErrorCode.InvalidInput, `Tenant "${input.tenantSlug}" not found`);
    return { kind: 'system', via: input.via, tenantId: tenant.id, tenantSlug: tenant.slug };
  }
}
