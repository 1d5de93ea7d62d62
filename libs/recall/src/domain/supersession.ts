import type { Memory } from '@app/memories';

/**
 * Replaces each superseded hit by the head of its chain, in the hit's place (its rank stays),
 * marked with the id it was redirected from; a memory served twice keeps only its first (best)
 * place. A head whose row is not at hand (gone, or not readable), or that this caller is not served
 * (`servable`: a branch memory off its branch), leaves the hit as it was; a hit not served is left
 * out. Returns at most `limit` items.
 */
export function redirectToHeads<T extends { readonly memory: Memory }>(
  ranked: readonly T[],
  heads: ReadonlyMap<number, number>,
  memories: ReadonlyMap<number, Memory>,
  limit: number,
  servable: (memory: Memory) => boolean = () => true,
): Array<T & { readonly redirectedFrom?: number }> {
  const served: Array<T & { readonly redirectedFrom?: number }> = [];
  const seen = new Set<number>();
  for (const item of ranked) {
    if (served.length >= limit) break;
    const headId = heads.get(item.memory.id);
    const found = headId === undefined ? undefined : memories.get(headId);
    const head = found !== undefined && servable(found) ? found : undefined;
    const next = head ? { ...item, memory: head, redirectedFrom: item.memory.id } : item;
    if (seen.has(next.memory.id) || !servable(next.memory)) continue;
    seen.add(next.memory.id);
    served.push(next);
  }
  return served;
}

/**
 * How many of `ranked` (memory ids, best first) redirectToHeads goes through to serve `limit`
 * memories when every head is at hand: a hit whose served memory is already served takes no
 * place. Only that prefix needs its rows read.
 */
export function servedPrefixLength(
  ranked: readonly number[],
  heads: ReadonlyMap<number, number>,
  limit: number,
): number {
  const served = new Set<number>();
  let taken = 0;
  while (taken < ranked.length && served.size < limit) {
    served.add(heads.get(ranked[taken]) ?? ranked[taken]);
    taken += 1;
  }
  return taken;
}
