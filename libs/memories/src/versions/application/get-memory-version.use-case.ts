import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { MemoryVersionRepository, type ListedMemoryVersion } from '../adapters/memory-version.repository';
import { readStates } from './version-states';

export type { VersionRef } from './version-states';

/** `GET /api/memories/:id/versions/:version`: one earlier version of a memory the caller may read. */
@Injectable()
export class GetMemoryVersionUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly versions: MemoryVersionRepository,
  ) {}

  async execute(principal: Principal, memoryId: number, version: number): Promise<ListedMemoryVersion> {
    const states = await this.tx.inTenant(
      principal,
      (tx) =>
        readStates({ memories: this.memories, versions: this.versions }, principal, tx, memoryId, [version]),
      READ_ONLY,
    );
    return states.versions.get(version) as ListedMemoryVersion;
  }
}
