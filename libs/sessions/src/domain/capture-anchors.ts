import { MAINLINE_BRANCHES, MAX_ANCHORS, normaliseAnchorPath, type NewAnchor } from '@app/memories';

const BLOB_ID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;
const COMMIT = /^[0-9a-f]{7,64}$/;
/** A bare file name must be this long to count as a mention ("a.ts" in prose is too easily a coincidence). */
const MIN_NAME_MENTION = 5;

/**
 * The anchors of a memory captured from a session: the files the session touched that its text
 * names (by path, or by a file name only one touched file has), at the session's commit with the
 * blob id the hook saw last. A captured memory that names no touched file gets none.
 */
export function captureAnchors(
  content: string,
  touched: readonly { readonly path: string; readonly hash: string | null }[],
  session: { readonly project: string | null; readonly gitCommit: string | null },
): NewAnchor[] {
  if (session.project === null) return [];
  const files = touched.flatMap((file) => {
    const path = normaliseAnchorPath(file.path);
    return path === null
      ? []
      : [{ path, hash: file.hash !== null && BLOB_ID.test(file.hash) ? file.hash : null }];
  });
  const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  const names = new Map<string, number>();
  for (const file of files) names.set(nameOf(file.path), (names.get(nameOf(file.path)) ?? 0) + 1);
  const commit = session.gitCommit !== null && COMMIT.test(session.gitCommit) ? session.gitCommit : undefined;
  return files
    .filter((file) => {
      if (mentions(content, file.path)) return true;
      const name = nameOf(file.path);
      return name.length >= MIN_NAME_MENTION && names.get(name) === 1 && mentions(content, name);
    })
    .slice(0, MAX_ANCHORS)
    .map((file) => ({
      repo: session.project as string,
      path: file.path,
      ...(commit ? { commit } : {}),
      ...(file.hash ? { hash: file.hash } : {}),
    }));
}

/** The branch a captured memory is scoped to: the session's feature branch, when the tenant scopes them. */
export function captureBranch(
  session: { readonly project: string | null; readonly gitBranch: string | null },
  scoped: boolean,
): string | undefined {
  if (!scoped || session.project === null || session.gitBranch === null) return undefined;
  return MAINLINE_BRANCHES.includes(session.gitBranch) ? undefined : session.gitBranch;
}

/** `text` names `name` as a whole token: not inside a longer path or word. */
function mentions(text: string, name: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(name, from);
    if (at < 0) return false;
    const before = at === 0 ? '' : text[at - 1];
    const after = text[at + name.length] ?? '';
    if (!/[\w/.-]/.test(before) && !/[\w/-]/.test(after) && !/^\.\w/.test(text.slice(at + name.length))) {
      return true;
    }
    from = at + 1;
  }
}
