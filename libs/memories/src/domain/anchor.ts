/**
 * A memory's link to code: which file (and optionally which symbol and lines) of which repository it
 * speaks of, at which commit, and the git blob id (`hash`) the file had then. The service never
 * sees file contents: staleness is decided per file by comparing blob ids that clients and CI report.
 */
export interface NewAnchor {
  /** Project identity (`host/owner/repo`); absent: the memory's project. */
  readonly repo?: string;
  /** Repository-relative, forward slashes, no `.` or `..` segments. */
  readonly path: string;
  readonly symbol?: string;
  readonly lines?: { readonly start: number; readonly end: number };
  /** The commit the memory was written against (hex). */
  readonly commit?: string;
  /** The file's git blob id then (`git hash-object`, 40 or 64 hex). */
  readonly hash?: string;
}

/** `current`: the code reads as it did; `stale`: the file changed since; `orphaned`: it was deleted. */
export type AnchorState = 'current' | 'stale' | 'orphaned';
export const ANCHOR_STATES: readonly AnchorState[] = ['current', 'stale', 'orphaned'];

/** The change that made an anchor stale or orphaned. */
export interface AnchorChange {
  /** The code event that reported it; null for a mismatch found at read against the caller's tree. */
  readonly eventId: number | null;
  readonly at: string;
  /** The file's blob id after the change (null: deleted). */
  readonly hash: string | null;
  readonly commit: string | null;
}

export interface MemoryAnchor {
  readonly repo: string;
  readonly path: string;
  readonly symbol: string | null;
  readonly lines: { readonly start: number; readonly end: number } | null;
  readonly commit: string | null;
  readonly hash: string | null;
  readonly state: AnchorState;
  readonly change: AnchorChange | null;
}

/**
 * Branches that are a project's mainline: what capture stores there, and what changes there, are the
 * whole project's; elsewhere a branch's memories and changes are that branch's (until merged).
 */
export const MAINLINE_BRANCHES: readonly string[] = ['main', 'master', 'trunk', 'develop'];

/** At most this many anchors per memory. */
export const MAX_ANCHORS = 20;
export const MAX_ANCHOR_PATH = 1024;
export const MAX_ANCHOR_SYMBOL = 300;

/** What a memory's anchors say of it as a whole: the worst of them (no anchors: null). */
export type CodeState = AnchorState;

export function codeStateOf(anchors: readonly MemoryAnchor[] | undefined): CodeState | null {
  if (!anchors || anchors.length === 0) return null;
  if (anchors.some((a) => a.state === 'orphaned')) return 'orphaned';
  if (anchors.some((a) => a.state === 'stale')) return 'stale';
  return 'current';
}

/**
 * A repository-relative path as anchors keep it and code events compare it: backslashes become
 * slashes, a leading `./` and repeated slashes go; null when it is absolute or climbs out (`..`).
 */
export function normaliseAnchorPath(path: string): string | null {
  const cleaned = path
    .trim()
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .replace(/^(\.\/)+/, '');
  if (cleaned === '' || cleaned.startsWith('/') || /^[A-Za-z]:\//.test(cleaned)) return null;
  const segments = cleaned.split('/');
  if (segments.some((s) => s === '..' || s === '.')) return null;
  return cleaned.replace(/\/$/, '') || null;
}

/** How an anchor reads in a text answer: `path:line@commit` (what exists of it). */
export function anchorLabel(anchor: Pick<MemoryAnchor, 'path' | 'lines' | 'commit' | 'symbol'>): string {
  const lines = anchor.lines
    ? anchor.lines.start === anchor.lines.end
      ? `:${anchor.lines.start}`
      : `:${anchor.lines.start}-${anchor.lines.end}`
    : '';
  const symbol = anchor.symbol ? `#${anchor.symbol}` : '';
  const commit = anchor.commit ? `@${anchor.commit.slice(0, 12)}` : '';
  return `${anchor.path}${symbol}${lines}${commit}`;
}

/** A working tree's facts as a recall, startup context or verify gives them (see `treeFactsSchema`). */
export interface TreeFacts {
  readonly repo: string;
  readonly branch?: string;
  readonly commit?: string;
  /** Files the tree changed, with their blob ids (null: deleted). */
  readonly paths: readonly { readonly path: string; readonly hash: string | null }[];
}

/**
 * The anchors as the caller's tree shows them: an anchor of the tree's repository on a listed path
 * whose blob id differs is `stale` (`orphaned` when the tree deleted the file) for this read, with
 * a change that names no event. Anchors the tree says nothing of stay as stored.
 */
export function anchorsInTree(anchors: readonly MemoryAnchor[], tree: TreeFacts, at: string): MemoryAnchor[] {
  const paths = new Map(tree.paths.map((p) => [p.path, p.hash]));
  return anchors.map((anchor) => {
    if (anchor.repo !== tree.repo || !paths.has(anchor.path)) return anchor;
    const hash = paths.get(anchor.path) ?? null;
    if (hash !== null && (anchor.change?.hash ?? anchor.hash) === hash) return anchor;
    return {
      ...anchor,
      state: hash === null ? 'orphaned' : 'stale',
      change: { eventId: null, at, hash, commit: tree.commit ?? null },
    };
  });
}

/**
 * The anchors a verify keeps: each one now holds for the code as it is (its change's blob id and
 * commit, or the caller's tree's), a file that is gone loses its anchor.
 */
export function verifiedAnchors(anchors: readonly MemoryAnchor[], tree?: TreeFacts): NewAnchor[] {
  const inTree = tree ? anchorsInTree(anchors, tree, new Date().toISOString()) : anchors;
  return inTree
    .filter((a) => a.state !== 'orphaned')
    .map((a) => ({
      repo: a.repo,
      path: a.path,
      ...(a.symbol !== null ? { symbol: a.symbol } : {}),
      ...(a.lines !== null ? { lines: a.lines } : {}),
      ...((a.change?.commit ?? a.commit) ? { commit: (a.change?.commit ?? a.commit) as string } : {}),
      ...((a.change?.hash ?? a.hash) ? { hash: (a.change?.hash ?? a.hash) as string } : {}),
    }));
}
