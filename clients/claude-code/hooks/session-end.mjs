#!/usr/bin/env node
// Stop and SessionEnd: sends what is spooled and ends the service session (status ended, now).
// Stop comes after every turn: ending again moves `ended_at` to the latest turn, and events of a
// later turn still go into the same session. It also reports the files of the repository changed
// since the session started (paths and git blob ids) as a code event, when they changed since the
// last report.

import { spoolCodeEvent } from './lib/code-events.mjs';
import { endRecord } from './lib/delivery.mjs';
import { runHook } from './lib/hook.mjs';

runHook('end', async (hook) => {
  hook.spool.enqueue(endRecord(hook));
  try {
    await spoolCodeEvent(hook);
  } catch (error) {
    hook.log('no code event', error);
  }
  await hook.drain();
});
