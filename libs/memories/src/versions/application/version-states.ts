import type { Tx } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import type { Memory } from '../../domain/memory';
import { MemoryError, MemoryErrorCode } from '../../domain/memory.errors';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { MemoryVersionRepository, type ListedMemoryVersion } from '../adapters/memory-version.repository';

/** A version number, or the memory's current state. */
export type VersionRef = number | 'current';

/** The states a reader asked for, by reference, with the memory as it is now. */
export interface ReadStates {
  readonly memory: Memory;
  readonly versions: ReadonlyMap<number, ListedMemoryVersion>;
}

/**
 * Reads the memory the caller may see and the versions named: 404 when the memory is not visible
 * to them, or a version does not exist. Shared by the reads and the restore of versions.
 */
export async function readStates(
  reads: { memories: MemoryReadRepository; versions: MemoryVersionRepository },
  principal: Principal,
  tx: Tx,
  memoryId: number,
  refs: readonly VersionRef[],
): Promise<ReadStates> {
  const memory = await reads.memories.findVisibleOne(principal, tx, memoryId);
  if (!memory) throw MemoryError.notFound(memoryId);
  const numbers = [...new Set(refs.filter((r): r is number => r !== 'current'))];
  const found = await reads.versions.find(principal, tx, memoryId, numbers);
  const versions = new Map(found.map((v) => [v.version, v]));
  const missing = numbers.find((n) => !versions.has(n));
  if (missing !== undefined) {
    throw new MemoryError(
      MemoryErrorCode.VersionNotFound,
      `Memory ${memoryId} has no version ${missing}: GET /api/memories/${memoryId}/versions lists them`,
    );
  }
  return { memory, versions };
}
