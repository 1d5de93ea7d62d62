import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryRepository } from '../adapters/memory.repository';
import { DELETE_PREVIEW_LENGTH } from '../domain/memory';
import { MemoryError } from '../domain/memory.errors';
import { ownerScopeFor } from './ownership';
import { WRITE_TRANSACTION } from './write-transaction';

export const ALREADY_DELETED_PREVIEW = '[already deleted]';

/** Soft delete. Repeating it on the caller's own memory is harmless; other ids are not found. */
@Injectable()
export class DeleteMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: number): Promise<{ deleted: number; preview: string }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const owner = await ownerScopeFor(this.memories, principal, tx, id, 'manage');
        const current = await this.memories.lockOwned(owner, tx, id);
        if (!current) throw MemoryError.notFound(id);
        if (current.deleted) return { deleted: id, preview: ALREADY_DELETED_PREVIEW };
        await this.memories.softDelete(owner, tx, id);
        await this.audit.record(principal, tx, {
          action: 'memory.delete',
          targetType: 'memory',
          targetId: id,
        });
        return { deleted: id, preview: [...current.content].slice(0, DELETE_PREVIEW_LENGTH).join('') };
      },
      WRITE_TRANSACTION,
    );
  }
}
