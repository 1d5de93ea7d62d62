import { type TenantScope, type Tx } from '@app/persistence';
import type { Memory } from '../domain/memory';
import type { MemoryLink } from '../domain/memory-link';
import type { TeamDuplicate } from './memory-filter.sql';

/** `last`: the read ends the caller's transaction (see `QueryOptions.last`): its commit goes with it. */
export interface FinalRead {
  readonly last?: boolean;
}

/**
 * How other contexts (recall, sessions) read memories inside their own transaction: by id among
 * what the caller may see, by content hash among the caller's own, or a teammate's team memory
 * that a new one would repeat. An abstract class, so it
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
  /**
   * The teammate's live team memory a new team memory of the caller would repeat: the same text,
   * else the first of `near` (most similar first); none while the caller holds that text themselves.
   */
  abstract findTeamDuplicate(
    scope: TenantScope,
    tx: Tx,
    contentHash: Buffer,
    near: readonly number[],
  ): Promise<TeamDuplicate | null>;
  /** Whether a teammate of the caller has a live team memory (one a new team memory could repeat). */
  abstract teammatesShareMemories(scope: TenantScope, tx: Tx, options?: FinalRead): Promise<boolean>;
}
