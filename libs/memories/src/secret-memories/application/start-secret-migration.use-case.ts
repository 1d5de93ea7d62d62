import { Inject, Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import { type AdminJob } from '@app/jobs';
import { AdminJobRepository } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import {
  actingUserId,
  assertAdmin,
  AuditWriter,
  TenancyError,
  TenancyErrorCode,
  tenantScopeOf,
  type Actor,
} from '@app/tenancy';

export const SECRET_MIGRATION_JOB_KIND = 'secrets.migrate';

export interface StartSecretMigrationInput {
  /** The admin's own tenant (slug or id); the default. Another tenant's name is unknown here (404). */
  readonly tenant?: string;
  /** Report what would move without changing anything. */
  readonly dryRun: boolean;
}

/**
 * `POST /api/admin/secrets/migrate` and `cli secrets migrate`: records a `jobs` row and queues
 * `secrets.migrate` through the outbox in one transaction; the worker scans the tenant's
 * memories in batches. Asking again while an identical job is unfinished returns that job (and
 * queues it once more, so a stalled job resumes from its checkpoint).
 */
@Injectable()
export class StartSecretMigrationUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(AdminJobRepository) private readonly jobs: AdminJobRepository,
    @Inject(OutboxWriter) private readonly outbox: OutboxWriter,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, input: StartSecretMigrationInput): Promise<AdminJob> {
    assertAdmin(actor);
    if (input.tenant !== undefined && input.tenant !== actor.tenantSlug && input.tenant !== actor.tenantId) {
      throw new TenancyError(TenancyErrorCode.TenantNotFound, `Tenant "${input.tenant}" not found`);
    }
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, async (tx) => {
      // RLS limits this to the caller's tenant.
      const open = await this.jobs.findOpen(tx, SECRET_MIGRATION_JOB_KIND);
      const same = open.find((j) => j.tenantId === actor.tenantId && j.params.dry_run === input.dryRun);
      const job =
        same ??
        (await this.jobs.insert(scope, tx, {
          kind: SECRET_MIGRATION_JOB_KIND,
          params: { dry_run: input.dryRun },
          createdBy: actingUserId(actor),
        }));
      await this.outbox.enqueue(scope, tx, {
        name: 'secrets.migrate',
        payload: {
          tenantId: actor.tenantId,
          jobId: job.id,
          dryRun: input.dryRun,
          requestId: actor.requestId,
        },
        requestId: actor.requestId,
      });
      await this.audit.record(actor, tx, {
        action: same ? 'secrets.migrate.resume' : 'secrets.migrate',
        targetType: 'tenant',
        targetId: actor.tenantId,
        details: { job_id: job.id, dry_run: input.dryRun },
      });
      return job;
    });
  }
}
