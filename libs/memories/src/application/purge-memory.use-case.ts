import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryRepository } from '../adapters/memory.repository';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { ownerScopeFor } from './ownership';
import { WRITE_TRANSACTION } from './write-transaction';

/** Permanent removal, allowed only after a soft delete so one call can never destroy live data. */
@Injectable()
export class PurgeMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: number): Promise<{ purged: number }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const owner = await ownerScopeFor(this.memories, principal, tx, id, 'manage');
        const current = await this.memories.lockOwned(owner, tx, id);
        if (!current) throw MemoryError.notFound(id);
        if (!current.deleted) {
          throw new MemoryError(
            MemoryErrorCode.NotDeleted,
            `Memory ${id} is not deleted; delete it before purging`,
          );
        }
        await this.memories.purge(owner, tx, id);
        await this.audit.record(principal, tx, {
          action: 'memory.purge',
          targetType: 'memory',
          targetId: id,
        });
        return { purged: id };
      },
      WRITE_TRANSACTION,
    );
  }
}
