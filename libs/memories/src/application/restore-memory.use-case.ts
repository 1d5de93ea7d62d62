import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryRepository } from '../adapters/memory.repository';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { ownerScopeFor } from './ownership';
import { WRITE_TRANSACTION } from './write-transaction';

/** Undoes a soft delete. Restoring a live memory is a no-op that still answers 200. */
@Injectable()
export class RestoreMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: number): Promise<{ restored: number }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const owner = await ownerScopeFor(this.memories, principal, tx, id, 'manage');
        const current = await this.memories.lockOwned(owner, tx, id);
        if (!current) throw MemoryError.notFound(id);
        if (!current.deleted) return { restored: id };
        const duplicate = await this.memories.hasLiveDuplicate(owner, tx, id, current.contentHash);
        if (duplicate !== null) {
          throw new MemoryError(
            MemoryErrorCode.DuplicateContent,
            `Memory ${duplicate} already has this content; delete it first or keep it`,
          );
        }
        await this.memories.restore(owner, tx, id);
        await this.audit.record(principal, tx, {
          action: 'memory.restore',
          targetType: 'memory',
          targetId: id,
        });
        return { restored: id };
      },
      WRITE_TRANSACTION,
    );
  }
}
