/**
 * Typed, directed edges between two memories of one tenant. `src supersedes dst`: src is the newer
 * version of what dst says (recall answers with src); `part-of`: src is a detail of dst;
 * `see-also`: related reading; `resolved-by`: the problem in src is solved by dst.
 */
export const LINK_TYPES = ['supersedes', 'part-of', 'see-also', 'resolved-by'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

/** Most `supersedes` hops recall follows from a hit to the newest version. */
export const SUPERSEDES_MAX_DEPTH = 10;

export interface NewMemoryLink {
  readonly srcId: number;
  readonly dstId: number;
  readonly linkType: LinkType;
}

export interface MemoryLink extends NewMemoryLink {
  readonly id: number;
  /** ISO-8601 with offset. */
  readonly createdAt: string;
  /** The source is a proposal waiting for review (set where the read asks; absent otherwise). */
  readonly proposed?: boolean;
}

/** The proposals waiting for review that would supersede `memoryId`, among its links. */
export function pendingProposalsOf(memoryId: number, links: readonly MemoryLink[]): number[] {
  return links
    .filter((l) => l.linkType === 'supersedes' && l.dstId === memoryId && l.proposed === true)
    .map((l) => l.srcId);
}

/** A memory's links split by direction: from it (`out`) and to it (`in`). */
export interface MemoryLinks {
  readonly out: readonly MemoryLink[];
  readonly in: readonly MemoryLink[];
}

export function linksOf(memoryId: number, links: readonly MemoryLink[]): MemoryLinks {
  return {
    out: links.filter((l) => l.srcId === memoryId),
    in: links.filter((l) => l.dstId === memoryId),
  };
}
