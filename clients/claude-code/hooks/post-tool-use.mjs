#!/usr/bin/env node
// PostToolUse: records the tool call as the tool's name and a compact summary of its input
// (commands, paths, patterns, URLs; never file contents), capped in size.

import { eventsRecord } from './lib/delivery.mjs';
import { runHook } from './lib/hook.mjs';
import { toolCallPayload } from './lib/input.mjs';

runHook('tool', async (hook) => {
  if (hook.input.tool) {
    hook.spool.enqueue(
      eventsRecord(hook, [{ kind: 'tool_call', payload: toolCallPayload(hook.input.tool) }]),
    );
  }
  await hook.drain();
});
