import type { TransactionRunner, Tx } from '@app/persistence';

/** Deltas folded per transaction: a backlog (an import) is worked off in short transactions. */
export const FOLD_BATCH = 10_000;

/**
 * Runs a fold of trigger-appended deltas (`fold(tx, batch)` answers how many it moved; 0 when
 * another fold holds the lock) in system transactions of FOLD_BATCH until fewer are left; returns
 * how many were folded in all.
 */
export async function foldAllDeltas(
  tx: TransactionRunner,
  fold: (tx: Tx, batch: number) => Promise<number>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const folded = await tx.asSystem((t) => fold(t, FOLD_BATCH));
    total += folded;
    if (folded < FOLD_BATCH) return total;
  }
}
