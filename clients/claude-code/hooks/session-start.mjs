#!/usr/bin/env node
// SessionStart (also after /clear, a resume and a compaction): starts the service session with the
// working directory and its git remote, branch and commit, and prints the startup context for the
// agent. The commit is remembered as where the session started (for the code event at its end).

import { rememberProject, rememberStart } from './lib/code-events.mjs';
import { startupContext } from './lib/context.mjs';
import { startRecord } from './lib/delivery.mjs';
import { gitFacts } from './lib/git.mjs';
import { runHook } from './lib/hook.mjs';
import { pruneSessionStates } from './lib/state.mjs';

runHook('start', async (hook) => {
  const facts = await gitFacts(hook.input.cwd, hook.deadline);
  const record = startRecord(hook, facts);
  const name = hook.spool.enqueue(record);
  rememberStart(hook, facts);
  pruneSessionStates(hook.config);
  // The start goes ahead of older spooled records: the context depends on it, and it is idempotent.
  const started = await hook.deliverNow(name, record);
  if (started.outcome === 'kept') return;
  const project = started.result.body?.project ?? hook.config.project;
  rememberProject(hook, started.result.body?.project);
  const [context] = await Promise.all([
    startupContext(hook, project, hook.deadline, facts.git_branch),
    hook.drain(),
  ]);
  if (context) {
    hook.setContext(
      `${context}\n\nTeam memory session id: ${hook.session} (for session_note and session_end).`,
    );
  }
});
