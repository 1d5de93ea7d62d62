import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import type { MemoryState } from '../../domain/memory-version';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { MemoryVersionRepository } from '../adapters/memory-version.repository';
import { diffStates, type StateDiff } from '../domain/version-diff';
import { readStates, type VersionRef } from './version-states';

export interface VersionDiff extends StateDiff {
  readonly memoryId: number;
  readonly from: VersionRef;
  readonly to: VersionRef;
}

/** `GET /api/memories/:id/versions/diff?from=&to=`: what changed between two versions (or one and now). */
@Injectable()
export class DiffMemoryVersionsUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly versions: MemoryVersionRepository,
  ) {}

  async execute(
    principal: Principal,
    memoryId: number,
    from: VersionRef,
    to: VersionRef,
  ): Promise<VersionDiff> {
    const states = await this.tx.inTenant(
      principal,
      (tx) =>
        readStates({ memories: this.memories, versions: this.versions }, principal, tx, memoryId, [from, to]),
      READ_ONLY,
    );
    const stateOf = (ref: VersionRef): MemoryState =>
      ref === 'current' ? states.memory : (states.versions.get(ref) as MemoryState);
    const label = (ref: VersionRef) => (ref === 'current' ? 'current' : `version ${ref}`);
    return {
      memoryId,
      from,
      to,
      ...diffStates(stateOf(from), stateOf(to), { from: label(from), to: label(to) }),
    };
  }
}
