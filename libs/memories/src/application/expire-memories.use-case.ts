import { Inject, Injectable, Logger } from '@nestjs/common';
import { HandlesJob } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter } from '@app/tenancy';
import { MemoryWriteRepository } from '../write/memory-write.repository';

/** Rows soft-deleted per transaction, so a large backlog never holds many locks at once. */
export const EXPIRE_BATCH = 1000;

/**
 * `memories.expire`: soft-deletes memories past their `expires_at` (all tenants, as system). Reads
 * already leave them out the moment they expire; the soft delete makes sync report them as deleted
 * and lets the retention job purge them (and their secrets) later. The same sweep accepts the
 * proposals nobody rejected within their tenant's `proposal_auto_accept_hours`.
 */
@Injectable()
export class ExpireMemoriesUseCase {
  private readonly logger = new Logger('ExpireMemories');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryWriteRepository) private readonly memories: MemoryWriteRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  @HandlesJob('memories.expire', {
    schedule: { slotMs: 5 * 60_000, enqueueEveryMs: 60_000, idPrefix: 'memories-expire' },
  })
  async onSchedule(): Promise<void> {
    const expired = await this.execute();
    if (expired > 0) this.logger.log(`soft-deleted ${expired} expired memories`);
    const accepted = await this.acceptOverdueProposals();
    if (accepted > 0) this.logger.log(`accepted ${accepted} proposals nobody rejected in time`);
  }

  /**
   * Accepts every proposal older than its tenant's `proposal_auto_accept_hours` (tenants without
   * the setting: none), each with an audit row by the worker; returns how many.
   */
  async acceptOverdueProposals(): Promise<number> {
    let total = 0;
    for (;;) {
      const accepted = await this.tx.asSystem(async (tx) => {
        const rows = await this.memories.acceptOverdue(tx, EXPIRE_BATCH);
        for (const row of rows) {
          await this.audit.record(
            { kind: 'system', via: 'worker', tenantId: row.tenantId, tenantSlug: '' },
            tx,
            {
              action: 'memory.accept',
              targetType: 'memory',
              targetId: String(row.id),
              details: { automatic: true },
            },
          );
        }
        return rows.length;
      });
      total += accepted;
      if (accepted < EXPIRE_BATCH) return total;
    }
  }

  /** Soft-deletes every memory expired by now; returns how many. */
  async execute(): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.tx.asSystem((tx) => this.memories.softDeleteExpired(tx, EXPIRE_BATCH));
      total += count;
      if (count < EXPIRE_BATCH) return total;
    }
  }
}
