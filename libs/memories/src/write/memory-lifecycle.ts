import { Injectable } from '@nestjs/common';
import { runTogether, TransactionRunner, type Tx } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { ALREADY_DELETED_PREVIEW, DELETE_PREVIEW_LENGTH, type MemoryFilter } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import { ownerScopeFor } from '../read-model/ownership';
import { MemoryIndexing } from './memory-indexing';
import { MemoryWriteRepository } from './memory-write.repository';
import { WRITE_TRANSACTION } from './write-transaction';

/**
 * A memory's life after it is written: soft delete (alone or by filter), restore, purge. Each is
 * the owner's or an admin's (404 when the caller cannot see the memory, 403 when they may only
 * read it), locks the row, and records its audit entry in the same transaction. Used by
 * `MemoryWriter` only.
 */
@Injectable()
export class MemoryLifecycle {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly rows: MemoryWriteRepository,
    private readonly indexing: MemoryIndexing,
    private readonly audit: AuditWriter,
  ) {}

  /** Soft delete. Repeating it is harmless: an already deleted memory answers a fixed preview. */
  delete(principal: Principal, id: number): Promise<{ deleted: number; preview: string }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const { owner, current } = await this.lockForChange(principal, tx, id);
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

  /** Soft-deletes the caller's own live memories matching `filter`; answers their ids. */
  deleteMatching(principal: Principal, filter: MemoryFilter): Promise<number[]> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const ids = await this.rows.softDeleteMatching(principal, tx, filter);
        await this.audit.record(principal, tx, {
          action: 'memory.bulk_delete',
          targetType: 'memory',
          details: { filter, ids },
        });
        return ids;
      },
      WRITE_TRANSACTION,
    );
  }

  /**
   * Undoes a soft delete (a live memory: a no-op). The memory wants its index again: a delete may
   * have left it `skipped` (deleted before it was embedded) or its job was lost meanwhile, so the
   * restore marks it pending with a new `memory.index` job, as a write does; the job finds an
   * index that is still current and then writes nothing.
   */
  restore(principal: Principal, id: number): Promise<{ restored: number }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const { owner, current } = await this.lockForChange(principal, tx, id);
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
            ? this.indexing.statements({ ...owner, requestId: principal.requestId }, tx, id, input)
            : []),
          this.audit.statement(principal, { action: 'memory.restore', targetType: 'memory', targetId: id }),
        ]);
        return { restored: id };
      },
      WRITE_TRANSACTION,
    );
  }

  /** Permanent removal, allowed only after a soft delete so one call can never destroy live data. */
  purge(principal: Principal, id: number): Promise<{ purged: number }> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const { owner, current } = await this.lockForChange(principal, tx, id);
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

  /** The memory's owner scope and its locked row, once the caller may manage it (404/403 otherwise). */
  private async lockForChange(principal: Principal, tx: Tx, id: number) {
    const owner = await ownerScopeFor(this.reads, principal, tx, id, 'manage');
    const current = await this.rows.lockOwned(owner, tx, id);
    if (!current) throw MemoryError.notFound(id);
    return { owner, current };
  }
}
