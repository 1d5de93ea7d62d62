// What the hooks learn from git about the working directory: the repository, branch and commit, and
// which files differ from a commit, as repository-relative paths with their git blob ids. A blob id
// is computed by `git hash-object` on this machine; no file content is read here or ever sent.
//
// Every call is bounded by a short timeout and by the hook's deadline, and answers undefined
// instead of throwing: a slow file system or a hung credential helper must not stall the agent.

import { execFile } from 'node:child_process';
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const GIT_TIMEOUT_MS = 400;
/** Hashing many changed files takes longer than one lookup. */
const HASH_TIMEOUT_MS = 1000;
/** Time kept back from the deadline for what the hook does after git. */
const DEADLINE_MARGIN_MS = 50;
/** The service takes at most this many paths in a code event or a tree's facts; the rest is ignored. */
export const MAX_CHANGED_PATHS = 5000;
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
/** Longer paths and branch names than the service takes are left out. */
const MAX_PATH_CHARS = 1024;
const MAX_BRANCH_CHARS = 255;

/** A path the service can take: one line, not too long. */
const sendablePath = (path) => Boolean(path) && path.length <= MAX_PATH_CHARS && !/[\n\r]/.test(path);

/** Milliseconds a git call may take now: `cap`, less when the deadline is nearer; 0 when no time is left. */
function timeoutFor(deadline, cap = GIT_TIMEOUT_MS) {
  const timeout = Math.min(cap, Math.floor(deadline - performance.now()) - DEADLINE_MARGIN_MS);
  return timeout < 20 ? 0 : timeout;
}

/**
 * Runs `git -C cwd args…` and answers its stdout (trimmed unless `raw`), or undefined when it failed,
 * printed nothing or ran out of time. The answer comes by the timeout even if git does not die when
 * told to (a process stuck on a slow disk). `GIT_OPTIONAL_LOCKS=0`: a hook must never hold the
 * index lock the agent's own git commands need.
 */
export function git(cwd, args, { deadline, cap, input, raw = false }) {
  const timeout = timeoutFor(deadline, cap);
  if (!cwd || timeout === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let timer;
    const done = (value) => {
      clearTimeout(timer);
      resolve(value);
    };
    try {
      const child = execFile(
        'git',
        ['-C', cwd, ...args],
        {
          timeout,
          killSignal: 'SIGKILL',
          maxBuffer: MAX_OUTPUT_BYTES,
          windowsHide: true,
          env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
        },
        (error, stdout) => {
          const out = String(stdout);
          done(error ? undefined : raw ? out : out.trim() || undefined);
        },
      );
      timer = setTimeout(() => done(undefined), timeout + 20);
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input ?? '');
    } catch {
      done(undefined);
    }
  });
}

/**
 * A remote URL without credentials: `https://user:token@host/…` becomes `https://host/…`, and
 * `ssh://git:secret@host/…` keeps its user only. scp-like remotes (`git@host:owner/repo`) stay.
 */
export function safeRemote(remote) {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/@]*)@(.*)$/i.exec(remote);
  if (!match) return remote;
  const [, scheme, userinfo, rest] = match;
  if (/^https?:\/\/$/i.test(scheme)) return `${scheme}${rest}`;
  return `${scheme}${userinfo.split(':')[0]}@${rest}`;
}

/**
 * `{git_remote, git_branch, git_commit}` of the directory, each absent when git, the repository,
 * the remote, the branch (a detached HEAD) or a first commit is.
 */
export async function gitFacts(cwd, deadline) {
  const [remote, branch, commit] = await Promise.all([
    git(cwd, ['remote', 'get-url', 'origin'], { deadline }),
    // Also names the branch of a repository without commits; fails on a detached HEAD (no branch).
    git(cwd, ['symbolic-ref', '--short', '-q', 'HEAD'], { deadline }),
    git(cwd, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { deadline }),
  ]);
  return {
    ...(remote ? { git_remote: safeRemote(remote) } : {}),
    ...(branch && branch.length <= MAX_BRANCH_CHARS ? { git_branch: branch } : {}),
    ...(commit ? { git_commit: commit } : {}),
  };
}

/** The root of the work tree `cwd` lies in, as a real path (undefined outside one). */
export async function workTreeRoot(cwd, deadline) {
  const top = await git(cwd, ['rev-parse', '--show-toplevel'], { deadline });
  if (!top) return undefined;
  try {
    return realpathSync(top);
  } catch {
    return undefined;
  }
}

/** The real path of `file`, also of one that does not exist (its directory's real path, then its name). */
function realPath(file) {
  try {
    return realpathSync(file);
  } catch {
    try {
      return join(realpathSync(dirname(file)), basename(file));
    } catch {
      return file;
    }
  }
}

/** `file` relative to the work tree `top` with forward slashes; undefined outside it or inside `.git`. */
export function repoPath(top, file) {
  const rel = relative(top, realPath(file));
  const path = rel.replaceAll('\\', '/');
  if (path === '' || isAbsolute(rel) || path.split('/')[0] === '..') return undefined;
  return path === '.git' || path.startsWith('.git/') ? undefined : path;
}

/** 'file' (a regular file), 'missing', or 'other' (a directory, a symbolic link, a submodule…). */
function fileKind(top, path) {
  try {
    return lstatSync(join(top, path)).isFile() ? 'file' : 'other';
  } catch (error) {
    return error?.code === 'ENOENT' || error?.code === 'ENOTDIR' ? 'missing' : 'other';
  }
}

const isRegularFile = (top, path) => fileKind(top, path) === 'file';

/**
 * The blob ids of `paths` (repository-relative, regular files) as a Map, from one
 * `git hash-object --stdin-paths` (with the repository's filters, as `git add` would store them);
 * undefined when git failed or ran out of time.
 */
export async function hashFiles(top, paths, deadline) {
  if (paths.length === 0) return new Map();
  const out = await git(top, ['hash-object', '--stdin-paths'], {
    deadline,
    cap: HASH_TIMEOUT_MS,
    input: `${paths.join('\n')}\n`,
  });
  const ids = out?.split('\n') ?? [];
  if (ids.length !== paths.length) return undefined;
  return new Map(paths.map((path, i) => [path, ids[i]]));
}

/**
 * `{path, hash?}` of a file a tool named, when it lies in the work tree of `cwd` and the repository
 * has a commit (what the service anchors to is `path@commit`); no hash when the file does not exist.
 */
export async function fileAnchor(cwd, file, deadline) {
  const [top, head] = await Promise.all([
    workTreeRoot(cwd, deadline),
    git(cwd, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { deadline }),
  ]);
  if (!top || !head) return undefined;
  const path = repoPath(top, resolve(cwd, file));
  if (!sendablePath(path)) return undefined;
  const kind = fileKind(top, path);
  if (kind === 'missing') return { path };
  if (kind !== 'file') return undefined;
  const hash = (await hashFiles(top, [path], deadline))?.get(path);
  return hash ? { path, hash } : { path };
}

const STATUS = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', T: 'modified', U: 'modified' };

/** `git diff --name-status -z` output as `[{path, status, from?}]` (copies count as added). */
export function parseNameStatus(out) {
  const fields = out.split('\0');
  const changes = [];
  for (let i = 0; i + 1 < fields.length;) {
    const letter = fields[i].charAt(0);
    if (letter === 'R' || letter === 'C') {
      const [from, path] = [fields[i + 1], fields[i + 2]];
      i += 3;
      if (path !== undefined)
        changes.push(letter === 'R' ? { path, status: 'renamed', from } : { path, status: 'added' });
    } else {
      const path = fields[i + 1];
      i += 2;
      if (STATUS[letter]) changes.push({ path, status: STATUS[letter] });
    }
  }
  return changes;
}

/**
 * The files of the work tree `top` that differ from the commit `base`: what was committed since and
 * what is not committed yet (one `git diff <base>` against the working tree), plus untracked files
 * (not ignored) as added. Each with its blob id now; deletions without one. At most
 * MAX_CHANGED_PATHS, in path order; symbolic links and submodules are left out (not files).
 * Undefined when git failed or ran out of time.
 */
export async function changesSince(top, base, deadline) {
  const [diff, untracked] = await Promise.all([
    git(top, ['diff', '--name-status', '-z', '-M', '--no-color', base, '--'], { deadline, raw: true }),
    git(top, ['ls-files', '--others', '--exclude-standard', '-z'], { deadline, raw: true }),
  ]);
  if (diff === undefined || untracked === undefined) return undefined;
  const byPath = new Map();
  for (const change of parseNameStatus(diff)) byPath.set(change.path, change);
  for (const path of untracked.split('\0')) {
    if (path && !byPath.has(path)) byPath.set(path, { path, status: 'added' });
  }
  const changes = [...byPath.values()]
    .filter(({ path, from }) => sendablePath(path) && (from === undefined || sendablePath(from)))
    .filter((change) => change.status === 'deleted' || isRegularFile(top, change.path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, MAX_CHANGED_PATHS);
  const hashes = await hashFiles(
    top,
    changes.filter((c) => c.status !== 'deleted').map((c) => c.path),
    deadline,
  );
  if (!hashes) return undefined;
  return changes.map((change) =>
    change.status === 'deleted' ? change : { ...change, hash: hashes.get(change.path) },
  );
}

/**
 * Where the work tree of `cwd` stands: `{top, head, remote, branch}` (head, remote, branch absent
 * when there is none); undefined outside a work tree.
 */
export async function workTree(cwd, deadline) {
  const [top, facts] = await Promise.all([workTreeRoot(cwd, deadline), gitFacts(cwd, deadline)]);
  if (!top) return undefined;
  return { top, head: facts.git_commit, remote: facts.git_remote, branch: facts.git_branch };
}
