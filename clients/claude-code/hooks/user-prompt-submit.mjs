#!/usr/bin/env node
// UserPromptSubmit: records the prompt (the service redacts secrets before storing it). With
// MEMORY_RECALL_ON_PROMPT=1 it also prints the top recall results for the prompt.

import { recallForPrompt } from './lib/context.mjs';
import { eventsRecord } from './lib/delivery.mjs';
import { runHook } from './lib/hook.mjs';
import { capText, PROMPT_JSON_BYTES } from './lib/input.mjs';

runHook('prompt', async (hook) => {
  const { prompt } = hook.input;
  if (!prompt) {
    await hook.drain();
    return;
  }
  hook.spool.enqueue(
    eventsRecord(hook, [{ kind: 'prompt', payload: { text: capText(prompt, PROMPT_JSON_BYTES) } }]),
  );
  const recall =
    hook.config.recallOnPrompt && hook.config.client !== 'cursor' && hook.config.client !== 'codex-notify'
      ? recallForPrompt(hook, prompt, hook.deadline)
      : Promise.resolve('');
  const [context] = await Promise.all([recall, hook.drain()]);
  if (context) hook.setContext(context);
});
