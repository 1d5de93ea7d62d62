import { type TenantScope, type Tx } from '@app/persistence';
import type { MemoryLink } from '../domain/memory-link';

/**
 * How other contexts (recall) read links inside their own transaction. Only links whose both
 * ends the caller can see (live, and visible to them) exist for a reader. An abstract class, so
 * it is its own injection token.
 */
export abstract class MemoryLinkLookup {
  /** Every link from or to any of `ids`, oldest first. */
  abstract findTouching(scope: TenantScope, tx: Tx, ids: readonly number[]): Promise<MemoryLink[]>;

  /**
   * For each of `ids` that a memory the caller can see supersedes: the head of its chain, reached
   * by following "X supersedes Y" from Y to the newest visible X, at most SUPERSEDES_MAX_DEPTH
   * hops, never visiting a memory twice. Ids nobody visible supersedes are absent from the map.
   */
  abstract findSupersedingHeads(
    scope: TenantScope,
    tx: Tx,
    ids: readonly number[],
  ): Promise<Map<number, number>>;
}
