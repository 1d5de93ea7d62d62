import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import { MemoryWriteRepository } from '../write/memory-write.repository';
import type { MemoryFilter } from '../domain/memory';
import { WRITE_TRANSACTION } from '../write/write-transaction';

export interface BulkDeleteInput extends MemoryFilter {
  readonly dryRun: boolean;
}

export interface BulkDeleteResult {
  readonly matched: number;
  readonly deleted: number;
  readonly dry_run: boolean;
}

/** Soft-deletes the caller's memories matching a filter; a dry run (the default) only counts. */
@Injectable()
export class BulkDeleteMemoriesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly rows: MemoryWriteRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, input: BulkDeleteInput): Promise<BulkDeleteResult> {
    const filter: MemoryFilter = { category: input.category, tag: input.tag, project: input.project };
    return this.tx.inTenant(
      principal,
      async (tx) => {
        if (input.dryRun) {
          const matched = await this.reads.countMatching(principal, tx, filter, 'own');
          return { matched, deleted: 0, dry_run: true };
        }
        const ids = await this.rows.softDeleteMatching(principal, tx, filter);
        await this.audit.record(principal, tx, {
          action: 'memory.bulk_delete',
          targetType: 'memory',
          details: { filter, ids },
        });
        return { matched: ids.length, deleted: ids.length, dry_run: false };
      },
      WRITE_TRANSACTION,
    );
  }
}
