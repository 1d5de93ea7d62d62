import { Injectable } from '@nestjs/common';
import { runTogether, TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import { MemoryWriteRepository } from '../write/memory-write.repository';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MemoryWriter } from '../write/memory-writer';
import { ownerScopeFor } from '../read-model/ownership';
import { WRITE_TRANSACTION } from '../write/write-transaction';

/**
 * Undoes a soft delete. Restoring a live memory is a no-op that still answers 200. The memory wants
 * its index again: a delete may have left it `skipped` (deleted before it was embedded) or its job
 * was lost meanwhile, so the restore marks it pending with a new `memory.index` job, as a write does.
 * The job finds an index that is still current and then writes nothing.
 */
@Injectable()
export class RestoreMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly rows: MemoryWriteRepository,
    private readonly audit: AuditWriter,
    private readonly writer: MemoryWriter,
  ) {}

  async execute(principal: Principal, id: number): Promise<{ restored: number }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const owner = await ownerScopeFor(this.reads, principal, tx, id, 'manage');
        const current = await this.rows.lockOwned(owner, tx, id);
        if (!current) throw MemoryError.notFound(id);
        if (!current.deleted) return { restored: id };
        const duplicate = await this.rows.hasLiveDuplicate(owner, tx, id, current.contentHash);
        if (duplicate !== null) {
          throw new MemoryError(
            MemoryErrorCode.DuplicateContent,
            `Memory ${duplicate} already has this content; delete it first or keep it`,
          );
        }
        const input = await this.rows.restore(owner, tx, id);
        // Index state, outbox and audit in one round trip.
        await runTogether(tx, [
          ...(input
            ? this.writer.reindexStatements({ ...owner, requestId: principal.requestId }, tx, id, input)
            : []),
          this.audit.statement(principal, {
            action: 'memory.restore',
            targetType: 'memory',
            targetId: id,
          }),
        ]);
        return { restored: id };
      },
      WRITE_TRANSACTION,
    );
  }
}
