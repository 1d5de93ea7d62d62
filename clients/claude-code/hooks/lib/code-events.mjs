// The code event a session reports when it stops: which files of its repository changed since the
// commit its last report reached (at first, the commit the session started at), as paths and git blob ids (`POST /api/code-events`). The service
// marks memories anchored to those files as stale. No file content is read or sent.

import { createHash } from 'node:crypto';
import { codeRecord } from './delivery.mjs';
import { changesSince, workTree } from './git.mjs';
import { readSessionState, updateSessionState } from './state.mjs';

const COMMIT_ID = /^[0-9a-f]{7,64}$/;

/** Remembers the commit the session started at; a later start of the same session keeps the first. */
export function rememberStart(hook, facts) {
  if (!facts.git_commit || readSessionState(hook.config, hook.session).commit) return;
  updateSessionState(hook.config, hook.log, hook.session, { commit: facts.git_commit });
}

/** Remembers the project the service derived for the session (a repository without a remote). */
export function rememberProject(hook, project) {
  if (typeof project !== 'string' || !project) return;
  if (readSessionState(hook.config, hook.session).project === project) return;
  updateSessionState(hook.config, hook.log, hook.session, { project });
}

/** One digest of what a code event reports: the same set of changes is not reported twice. */
function digestOf(changes) {
  const lines = changes.map((c) => [c.status, c.path, c.from ?? '', c.hash ?? ''].join('\0'));
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/**
 * `{record, digest}` of the code event to send now, or undefined: outside a repository with commits,
 * no repository identity, nothing changed since the session started, the same changes already
 * reported, or git too slow for the time left.
 */
export async function codeEventRecord(hook) {
  const tree = await workTree(hook.input.cwd, hook.deadline);
  if (!tree?.head) return undefined;
  const state = readSessionState(hook.config, hook.session);
  const repo = tree.remote ?? hook.config.project ?? state.project;
  if (!repo) {
    hook.log('no code event: the repository has no remote and MEMORY_PROJECT is not set');
    return undefined;
  }
  // A session whose start was not seen (or that began before the first commit) counts from now.
  if (typeof state.commit !== 'string') {
    updateSessionState(hook.config, hook.log, hook.session, { commit: tree.head });
  }
  // Each report goes on from the commit the last one reached: a file renamed or deleted after an
  // earlier report is reported under the path that report gave it.
  // The state file is ours, yet what goes to git as a revision must be a commit id and nothing else.
  const commitId = (value) => (typeof value === 'string' && COMMIT_ID.test(value) ? value : undefined);
  const start = commitId(state.reportedTo) ?? commitId(state.commit) ?? tree.head;
  const changes = await changesSince(tree.top, start, hook.deadline);
  if (!changes) {
    hook.log(
      `no code event: git did not list the changes since ${start.slice(0, 12)} (too slow, or the commit is gone)`,
    );
    return undefined;
  }
  if (changes.length === 0) return undefined;
  const digest = digestOf(changes);
  if (digest === state.reported) return undefined;
  const body = {
    repo,
    ...(tree.branch ? { branch: tree.branch } : {}),
    before: start,
    after: tree.head,
    changes,
  };
  return { record: codeRecord(hook, body), digest, head: tree.head };
}

/** Spools the session's code event, if there is one to send, and remembers what it reported. */
export async function spoolCodeEvent(hook) {
  const event = await codeEventRecord(hook);
  if (!event) return;
  if (hook.spool.enqueue(event.record) === undefined) return;
  updateSessionState(hook.config, hook.log, hook.session, { reported: event.digest, reportedTo: event.head });
}
