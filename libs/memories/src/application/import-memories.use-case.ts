import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import type { NewMemory, StoredMemory } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MEMORY_LIMITS, type MemoryLimits } from './memory-limits';
import { MemoryWriter } from './memory-writer';

/** Stores a batch in one transaction: every item or none. Answers in input order. */
@Injectable()
export class ImportMemoriesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly writer: MemoryWriter,
    private readonly audit: AuditWriter,
    @Inject(MEMORY_LIMITS) private readonly limits: MemoryLimits,
  ) {}

  async execute(principal: Principal, items: readonly NewMemory[]): Promise<StoredMemory[]> {
    if (items.length > this.limits.maxImportBatch) {
      throw new MemoryError(
        MemoryErrorCode.BatchTooLarge,
        `import accepts at most ${this.limits.maxImportBatch} memories per request; got ${items.length}`,
      );
    }
    items.forEach((item, index) => {
      try {
        this.writer.assertValid(item);
      } catch (error) {
        if (error instanceof MemoryError)
          throw new MemoryError(error.code, `item ${index}: ${error.message}`);
        throw error;
      }
    });
    return this.tx.inTenant(principal, async (tx) => {
      const results: StoredMemory[] = [];
      for (const item of items) {
        const { id, category, importance } = await this.writer.store(principal, tx, item);
        results.push({ id, category, importance });
      }
      await this.audit.record(principal, tx, {
        action: 'memory.import',
        targetType: 'memory',
        details: { count: items.length, ids: results.map((r) => r.id) },
      });
      return results;
    });
  }
}
