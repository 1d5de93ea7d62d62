import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { TenantRepository } from '../adapters/tenant.repository';
import { hasScope, type Principal } from '../domain/principal';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { AuditWriter } from './audit-writer';

/** The header an admin names the reason for reading members' private memories in. */
export const PRIVATE_ACCESS_REASON_HEADER = 'x-private-access-reason';

const MIN_REASON = 10;
const MAX_REASON = 500;

/** What the request does, for the audit row. */
export interface PrivateAccessRequest {
  readonly method: string;
  readonly path: string;
}

/**
 * An admin's request to read and change members' private memories, with a reason. Granted only for
 * an admin key of a tenant whose `admin_private_access` setting is on; the grant is audited
 * (`admin.private_access`, naming the reason and the request) before the request runs, and holds
 * for that request only. Row-level security checks the tenant's setting again on every statement.
 */
@Injectable()
export class GrantPrivateAccessUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TenantRepository) private readonly tenants: TenantRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, reason: string, request: PrivateAccessRequest): Promise<Principal> {
    if (!hasScope(principal, 'admin')) {
      throw new TenancyError(
        TenancyErrorCode.Forbidden,
        `Only an admin key may send ${PRIVATE_ACCESS_REASON_HEADER}; members' private memories stay theirs`,
      );
    }
    const said = reason.trim();
    // eslint-disable-next-line no-control-regex
    if (said.length < MIN_REASON || said.length > MAX_REASON || /[\u0000-\u001f\u007f]/.test(said)) {
      throw new TenancyError(
        TenancyErrorCode.InvalidInput,
        `${PRIVATE_ACCESS_REASON_HEADER} must say why, in ${MIN_REASON} to ${MAX_REASON} printable characters`,
      );
    }
    await this.tx.inTenant(principal, async (tx) => {
      const settings = await this.tenants.settings(principal, tx);
      if (!settings?.adminPrivateAccess) {
        throw new TenancyError(
          TenancyErrorCode.Forbidden,
          "This tenant keeps members' private memories private from admins too (admin_private_access is off)",
        );
      }
      await this.audit.record(principal, tx, {
        action: 'admin.private_access',
        targetType: 'request',
        targetId: null,
        details: { reason: said, method: request.method, path: request.path },
      });
    });
    return { ...principal, privateAccess: true };
  }
}
