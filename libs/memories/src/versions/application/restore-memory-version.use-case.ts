import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import type { MemoryPatch } from '../../domain/memory';
import { MemoryError, MemoryErrorCode } from '../../domain/memory.errors';
import type { VersionedField } from '../../domain/memory-version';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { ownerScopeFor } from '../../read-model/ownership';
import { MemoryUpdate } from '../../write/memory-update';
import { MemoryVersionRepository, type ListedMemoryVersion } from '../adapters/memory-version.repository';
import { diffStates } from '../domain/version-diff';
import { readStates } from './version-states';

export interface RestoredVersion {
  readonly memoryId: number;
  readonly restored: number;
  /** The fields the restore changed (none when the memory already was in that state). */
  readonly changedFields: readonly VersionedField[];
}

/**
 * `POST /api/memories/:id/versions/:version/restore`: puts an earlier version's fields back as a
 * new change through the update path (its rights, screening, duplicate rule, quota, index job;
 * the state it replaces becomes a version in turn), audited as a restore. A version whose text
 * held a secret cannot bring that text back (versions keep the redacted text only): 409.
 */
@Injectable()
export class RestoreMemoryVersionUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly versions: MemoryVersionRepository,
    private readonly update: MemoryUpdate,
  ) {}

  async execute(principal: Principal, memoryId: number, version: number): Promise<RestoredVersion> {
    const states = await this.tx.inTenant(principal, async (tx) => {
      // 404 when the caller cannot see the memory, 403 when they may read but not change it.
      await ownerScopeFor(this.memories, principal, tx, memoryId, 'edit');
      return readStates({ memories: this.memories, versions: this.versions }, principal, tx, memoryId, [
        version,
      ]);
    });
    const target = states.versions.get(version) as ListedMemoryVersion;
    const { changedFields } = diffStates(states.memory, target, { from: 'current', to: 'restored' });
    if (changedFields.includes('content') && target.isSensitive) {
      throw new MemoryError(
        MemoryErrorCode.VersionSecretLost,
        `Version ${version} of memory ${memoryId} held a secret, and versions keep only its redacted text: store the secret again with PUT /api/memories/${memoryId}`,
      );
    }
    const patch = toPatch(target, changedFields);
    if (Object.keys(patch).length > 0) {
      await this.update.apply(principal, memoryId, patch, { restoresVersion: version });
    }
    return {
      memoryId,
      restored: version,
      changedFields: changedFields.filter((f) => f !== 'project'),
    };
  }
}

/** The patch that brings the version's changeable fields back (a memory's project does not change). */
function toPatch(target: ListedMemoryVersion, changed: readonly VersionedField[]): MemoryPatch {
  const has = (field: VersionedField) => changed.includes(field);
  return {
    ...(has('content') ? { content: target.content } : {}),
    ...(has('tags') ? { tags: target.tags } : {}),
    ...(has('category') ? { category: target.category } : {}),
    ...(has('importance') ? { importance: target.importance } : {}),
    ...(has('visibility') ? { visibility: target.visibility } : {}),
  };
}
