#!/usr/bin/env node
// PreCompact: a checkpoint before the conversation is summarised: sends what is spooled. The
// context comes back after the compaction from SessionStart (source `compact`), whose output the
// agent reads; PreCompact's output is not added to the conversation.

import { runHook } from './lib/hook.mjs';

runHook('compact', async (hook) => {
  await hook.drain();
});
