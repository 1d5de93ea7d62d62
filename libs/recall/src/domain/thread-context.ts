/**
 * Context around a memory: turns of one conversation are not independent ("yes, last Tuesday,
 * with Sam" means something only after the question before it). Memories of one thread carry a
 * tag with one of these prefixes; recall lends each memory a share of its thread neighbours'
 * relevance (RECALL_CONTEXT_WEIGHT), so the answer is found next to the turn that matched.
 */
export const THREAD_TAG_PREFIXES = ['thread:', 'session:'] as const;

/** Neighbours in both directions, from each memory's previous and next memory of its thread. */
export function adjacency(
  rows: readonly { memoryId: number; previousId: number | null; nextId: number | null }[],
): Map<number, number[]> {
  const adjacent = new Map<number, number[]>();
  const link = (a: number, b: number) => {
    const list = adjacent.get(a) ?? [];
    if (!list.includes(b)) list.push(b);
    adjacent.set(a, list);
  };
  for (const row of rows) {
    for (const other of [row.previousId, row.nextId]) {
      if (other === null) continue;
      link(row.memoryId, other);
      link(other, row.memoryId);
    }
  }
  return adjacent;
}
