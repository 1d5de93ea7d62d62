import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { PurgeAuditLogUseCase } from '@app/tenancy';
import { HandlesJob } from '../handles-job.decorator';

/** One retention run per hour cluster-wide. */
export const AUDIT_PURGE_SLOT_MS = 60 * 60 * 1000;

/**
 * `audit.purge`: deletes audit rows older than AUDIT_RETENTION_DAYS (default 90; 0 keeps them
 * forever) in every tenant, in batches, once per hourly slot.
 */
@Injectable()
export class PurgeAuditLogJob {
  private readonly logger = new Logger('AuditRetention');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PurgeAuditLogUseCase) private readonly purge: PurgeAuditLogUseCase,
  ) {}

  @HandlesJob('audit.purge', {
    schedule: { slotMs: AUDIT_PURGE_SLOT_MS, enqueueEveryMs: 5 * 60_000, idPrefix: 'audit-purge' },
  })
  async run(): Promise<void> {
    const removed = await this.purge.execute(this.config.audit.retentionDays);
    if (removed > 0)
      this.logger.log(`deleted ${removed} audit rows older than ${this.config.audit.retentionDays} days`);
  }
}
