import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import { MemoryWriteRepository } from '../write/memory-write.repository';
import { DELETE_PREVIEW_LENGTH } from '../domain/memory';
import { MemoryError } from '../domain/memory.errors';
import { ownerScopeFor } from '../read-model/ownership';
import { WRITE_TRANSACTION } from '../write/write-transaction';

export const ALREADY_DELETED_PREVIEW = '[already deleted]';

/** Soft delete. Repeating it on the caller's own memory is harmless; other ids are not found. */
@Injectable()
export class DeleteMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly rows: MemoryWriteRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: number): Promise<{ deleted: number; preview: string }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const owner = await ownerScopeFor(this.reads, principal, tx, id, 'manage');
        const current = await this.rows.lockOwned(owner, tx, id);
        if (!current) throw MemoryError.notFound(id);
        if (current.deleted) return { deleted: id, preview: ALREADY_DELETED_PREVIEW };
        await this.rows.softDelete(owner, tx, id);
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
