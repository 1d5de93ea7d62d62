import { type TenantScope, type Tx } from '@app/persistence';
import type { MemoryLink } from '../domain/memory-link';

/**
 * How other contexts (recall) read links inside their own transaction. Only links whose both
 * ends the caller can see (live, and visible to them) exist for a reader. An abstract class, so
 * it is its own injection token. (Recall follows supersedes chains in its own statement, with
 * `supersedingHeadsSql`.)
 */
export abstract class MemoryLinkLookup {
  /** Every link from or to any of `ids`, oldest first. */
  abstract findTouching(scope: TenantScope, tx: Tx, ids: readonly number[]): Promise<MemoryLink[]>;
}
