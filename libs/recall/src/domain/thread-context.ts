/**
 * Context around a memory: turns of one conversation are not independent ("yes, last Tuesday,
 * with Sam" means something only after the question before it). Memories of one thread carry a
 * tag with one of these prefixes; recall lends each memory a share of its thread neighbours'
 * relevance (RECALL_CONTEXT_WEIGHT), so the answer is found next to the turn that matched.
 */
export const THREAD_TAG_PREFIXES = ['thread:', 'session:'] as const;

/**
 * Whom each memory borrows from: `both` its previous and next memory of the thread, `previous` only
 * the one before it (a reply borrows from what it answers, never the other way round).
 */
export type ContextDirection = 'both' | 'previous';

/** The memories each memory may borrow from, from each hit's previous and next memory of its thread. */
export function adjacency(
  rows: readonly { memoryId: number; previousId: number | null; nextId: number | null }[],
  direction: ContextDirection = 'both',
): Map<number, number[]> {
  const adjacent = new Map<number, number[]>();
  /** `borrower` may borrow from `lender`. */
  const link = (borrower: number, lender: number) => {
    const list = adjacent.get(borrower) ?? [];
    if (!list.includes(lender)) list.push(lender);
    adjacent.set(borrower, list);
  };
  for (const row of rows) {
    if (row.previousId !== null) {
      link(row.memoryId, row.previousId);
      if (direction === 'both') link(row.previousId, row.memoryId);
    }
    if (row.nextId !== null) {
      link(row.nextId, row.memoryId);
      if (direction === 'both') link(row.memoryId, row.nextId);
    }
  }
  return adjacent;
}
