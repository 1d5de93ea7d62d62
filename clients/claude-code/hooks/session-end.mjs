#!/usr/bin/env node
// Stop and SessionEnd: sends what is spooled and ends the service session (status ended, now).
// Stop comes after every turn: ending again moves `ended_at` to the latest turn, and events of a
// later turn still go into the same session.

import { endRecord } from './lib/delivery.mjs';
import { runHook } from './lib/hook.mjs';

runHook('end', async (hook) => {
  hook.spool.enqueue(endRecord(hook));
  await hook.drain();
});
