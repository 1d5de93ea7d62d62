import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import { MemoryWriteRepository } from '../write/memory-write.repository';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { ownerScopeFor } from '../read-model/ownership';
import { WRITE_TRANSACTION } from '../write/write-transaction';

/** Permanent removal, allowed only after a soft delete so one call can never destroy live data. */
@Injectable()
export class PurgeMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly rows: MemoryWriteRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: number): Promise<{ purged: number }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const owner = await ownerScopeFor(this.reads, principal, tx, id, 'manage');
        const current = await this.rows.lockOwned(owner, tx, id);
        if (!current) throw MemoryError.notFound(id);
        if (!current.deleted) {
          throw new MemoryError(
            MemoryErrorCode.NotDeleted,
            `Memory ${id} is not deleted; delete it before purging`,
          );
        }
        await this.rows.purge(owner, tx, id);
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
