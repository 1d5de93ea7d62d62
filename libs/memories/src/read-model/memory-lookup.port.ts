import { type TenantScope, type Tx } from '@app/persistence';
import type { Memory } from '../domain/memory';
import type { MemoryLink } from '../domain/memory-link';

/** `last`: the read ends the caller's transaction (see `QueryOptions.last`): its commit goes with it. */
export interface FinalRead {
  readonly last?: boolean;
}

/**
 * How other contexts (recall, sessions) read memories inside their own transaction: by id among
 * what the caller may see, or by content hash among the caller's own. An abstract class, so it
 * is its own injection token.
 */
export abstract class MemoryLookup {
  /** Live memories the caller may read (`visibleMemorySql`: own, team, shared, admin), in no particular order. */
  abstract findVisible(
    scope: TenantScope,
    tx: Tx,
    ids: readonly number[],
    options?: FinalRead,
  ): Promise<Memory[]>;
  /** `findVisible`, each memory with its links whose both ends the caller can see, oldest first. */
  abstract findVisibleWithLinks(
    scope: TenantScope,
    tx: Tx,
    ids: readonly number[],
    options?: FinalRead,
  ): Promise<Array<{ memory: Memory; links: MemoryLink[] }>>;
  /** The caller's own live memory with this normalised content hash, if any. */
  abstract findLiveByHash(scope: TenantScope, tx: Tx, contentHash: Buffer): Promise<Memory | null>;
}
