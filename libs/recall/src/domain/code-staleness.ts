import { anchorsInTree, codeStateOf, type Memory, type TreeFacts } from '@app/memories';

/**
 * Factor on the rank of a memory whose anchored code changed since it was written (stale) or is
 * gone (orphaned): it still answers — it may hold — but below what is known to be current.
 */
export const STALE_CODE_FACTOR = 0.5;

/**
 * A branch-scoped memory is served on its branch only: to a caller whose tree is that branch of the
 * memory's project. Memories of the whole project are served to everyone who may read them.
 */
export function servedOnBranch(memory: Pick<Memory, 'branch' | 'project'>, tree?: TreeFacts): boolean {
  if (memory.branch === undefined) return true;
  return tree !== undefined && tree.branch === memory.branch && tree.repo === memory.project;
}

interface Ranked {
  readonly memory: Memory;
  readonly rank: number;
}

/**
 * Served items as the code says now: with the caller's tree, anchors on the files it changed read
 * as stale (or orphaned) for this answer; a memory whose code changed ranks × STALE_CODE_FACTOR.
 * Re-sorted by rank when the answer is by relevance (ties keep their order). Answers each item's
 * factor beside it.
 */
export function rankByCode<T extends Ranked>(
  items: readonly T[],
  options: { readonly tree?: TreeFacts; readonly at: string; readonly byRelevance: boolean },
): Array<{ item: T; codeFactor: number }> {
  const rated = items.map((item) => {
    const stored = item.memory.anchors;
    if (!stored || stored.length === 0) return { item, codeFactor: 1 };
    const anchors = options.tree ? anchorsInTree(stored, options.tree, options.at) : stored;
    const state = codeStateOf(anchors);
    const codeFactor = state === 'stale' || state === 'orphaned' ? STALE_CODE_FACTOR : 1;
    const memory = anchors === stored ? item.memory : { ...item.memory, anchors };
    return { item: { ...item, memory, rank: item.rank * codeFactor }, codeFactor };
  });
  if (!options.byRelevance || rated.every((r) => r.codeFactor === 1)) return rated;
  return rated
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.item.rank - a.r.item.rank || a.i - b.i)
    .map(({ r }) => r);
}
