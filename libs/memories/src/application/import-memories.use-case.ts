import { Inject, Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import type { Tx } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import type { ImportedMemory, StoredMemory } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MEMORY_LIMITS, type MemoryLimits } from '../write/memory-limits';
import { MemoryWriter } from '../write/memory-writer';

export interface ImportMemoriesOptions {
  /** Client-chosen key: the same key with the same batch returns the first answer, importing nothing. */
  readonly idempotencyKey?: string;
}

/** Imports of at least this many memories refresh the planner statistics right after they commit. */
export const ANALYZE_AFTER_IMPORTED = 100;

/**
 * Stores a batch in one transaction: every item or none. Answers in input order. Items from an
 * export get their links to other items of the same batch made again between the new rows.
 */
@Injectable()
export class ImportMemoriesUseCase {
  constructor(
    private readonly writer: MemoryWriter,
    private readonly audit: AuditWriter,
    private readonly outbox: OutboxWriter,
    @Inject(MEMORY_LIMITS) private readonly limits: MemoryLimits,
  ) {}

  async execute(
    principal: Principal,
    items: readonly ImportedMemory[],
    options: ImportMemoriesOptions = {},
  ): Promise<StoredMemory[]> {
    if (items.length > this.limits.maxImportBatch) {
      throw new MemoryError(
        MemoryErrorCode.BatchTooLarge,
        `import accepts at most ${this.limits.maxImportBatch} memories per request; got ${items.length}`,
      );
    }
    return this.writer.create(principal, items, {
      idempotencyKey: options.idempotencyKey,
      asImport: true,
      within: (tx, stored) => this.recordImport(principal, tx, stored),
    });
  }

  private async recordImport(principal: Principal, tx: Tx, stored: readonly StoredMemory[]): Promise<void> {
    if (stored.length >= ANALYZE_AFTER_IMPORTED) {
      // A bulk write can leave the planner's picture of this user far behind (estimated at 1 row);
      // refresh it now instead of waiting for autovacuum.
      await this.outbox.enqueue(principal, tx, {
        name: 'maintenance.analyze',
        payload: { tenantId: principal.tenantId, tables: ['memories', 'memory_index_state'] },
        requestId: principal.requestId,
      });
    }
    await this.audit.record(principal, tx, {
      action: 'memory.import',
      targetType: 'memory',
      details: { count: stored.length, ids: stored.map((r) => r.id) },
    });
  }
}
