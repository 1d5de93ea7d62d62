#!/usr/bin/env node
// PostToolUse: records the tool call as the tool's name and a compact summary of its input
// (commands, paths, patterns, URLs; never file contents), capped in size. A tool that read or
// changed a file of the working tree adds the file's repository-relative path and git blob id.

import { eventsRecord } from './lib/delivery.mjs';
import { fileAnchor } from './lib/git.mjs';
import { runHook } from './lib/hook.mjs';
import { toolCallPayload, toolFile } from './lib/input.mjs';

runHook('tool', async (hook) => {
  const { tool, cwd } = hook.input;
  if (tool) {
    const named = toolFile(tool);
    const file = named && cwd ? await fileAnchor(cwd, named, hook.deadline) : undefined;
    hook.spool.enqueue(eventsRecord(hook, [{ kind: 'tool_call', payload: toolCallPayload(tool, file) }]));
  }
  await hook.drain();
});
