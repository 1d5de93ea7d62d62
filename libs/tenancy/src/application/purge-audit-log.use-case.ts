import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditLogRepository } from '../adapters/audit-log.repository';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per transaction: keeps each delete's locks and WAL small on a large backlog. */
export const AUDIT_PURGE_BATCH = 5_000;

/** Retention of the audit log (all tenants): deletes rows older than `retentionDays`; 0 keeps all. */
@Injectable()
export class PurgeAuditLogUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(AuditLogRepository) private readonly audit: AuditLogRepository,
  ) {}

  async execute(retentionDays: number, now: Date = new Date()): Promise<number> {
    if (retentionDays <= 0) return 0;
    const horizon = new Date(now.getTime() - retentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const removed = await this.tx.asSystem((tx) => this.audit.purgeBefore(tx, horizon, AUDIT_PURGE_BATCH));
      total += removed;
      if (removed < AUDIT_PURGE_BATCH) return total;
    }
  }
}
