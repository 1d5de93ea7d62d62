import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import type { MemoryFilter } from '../domain/memory';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import { MemoryWriter } from '../write/memory-writer';

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
    private readonly writer: MemoryWriter,
  ) {}

  async execute(principal: Principal, input: BulkDeleteInput): Promise<BulkDeleteResult> {
    const filter: MemoryFilter = { category: input.category, tag: input.tag, project: input.project };
    if (input.dryRun) {
      const matched = await this.tx.inTenant(principal, (tx) =>
        this.reads.countMatching(principal, tx, filter, 'own'),
      );
      return { matched, deleted: 0, dry_run: true };
    }
    const ids = await this.writer.deleteMatching(principal, filter);
    return { matched: ids.length, deleted: ids.length, dry_run: false };
  }
}
