import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryError } from '../../domain/memory.errors';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { MemoryVersionRepository, type ListedMemoryVersion } from '../adapters/memory-version.repository';

export interface VersionPage {
  readonly limit: number;
  /** Only versions below this number (the previous page's last). */
  readonly before?: number;
}

/**
 * `GET /api/memories/:id/versions`: a memory's earlier versions, newest first, for whoever may read
 * the memory (404 otherwise, as for the memory itself).
 */
@Injectable()
export class ListMemoryVersionsUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly versions: MemoryVersionRepository,
  ) {}

  execute(principal: Principal, memoryId: number, page: VersionPage): Promise<ListedMemoryVersion[]> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        if (!(await this.memories.findVisibleOne(principal, tx, memoryId))) {
          throw MemoryError.notFound(memoryId);
        }
        return this.versions.list(principal, tx, memoryId, page);
      },
      READ_ONLY,
    );
  }
}
