import { Injectable } from '@nestjs/common';
import {
  NEW_ROW,
  runTogether,
  type RowId,
  type SqlStatement,
  type TenantScope,
  type Tx,
} from '@app/persistence';
import { indexInputHash, OutboxWriter } from '@app/jobs';
import { MemoryIndexRequestRepository } from './memory-index-request.repository';

/** What a memory's index is built from. */
export interface IndexInput {
  readonly content: string;
  readonly expandedKeywords: string;
  readonly tags: readonly string[];
}

/** Marks a memory's index pending and queues its `memory.index` job, in the caller's transaction. */
@Injectable()
export class MemoryIndexing {
  constructor(
    private readonly indexRequests: MemoryIndexRequestRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async schedule(
    principal: TenantScope & { readonly requestId?: string },
    tx: Tx,
    memoryId: number,
    input: IndexInput,
  ): Promise<void> {
    await runTogether(tx, this.statements(principal, tx, memoryId, input));
  }

  /**
   * The memory's index state marked pending and its `memory.index` job, to run in `tx`; for
   * `NEW_ROW`, to follow the memory's INSERT in its statement.
   */
  statements(
    principal: TenantScope & { readonly requestId?: string },
    tx: Tx,
    memoryId: RowId,
    input: IndexInput,
  ): SqlStatement[] {
    const hash = indexInputHash(input);
    const job = {
      name: 'memory.index',
      payload: {
        tenantId: principal.tenantId,
        userId: principal.userId,
        // For a new row, a placeholder the statement replaces with the row's id.
        memoryId: memoryId === NEW_ROW ? '0' : String(memoryId),
        contentHash: hash,
        requestId: principal.requestId,
      },
      requestId: principal.requestId,
    } as const;
    return [
      this.indexRequests.markIndexPendingStatement(principal, memoryId, hash),
      memoryId === NEW_ROW
        ? this.outbox.enqueueStatement(principal, tx, job, 'memoryId')
        : this.outbox.enqueueStatement(principal, tx, job),
    ];
  }
}
