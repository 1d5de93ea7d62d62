// The frame every hook script runs in. Its promises to the agent:
// - it exits 0, whatever happens (no service, a slow one, bad input, a bug here);
// - it exits within MEMORY_HOOK_TIMEOUT_MS of the hook starting, by a hard timer if need be;
// - stdout carries only the context meant for the agent (errors go to the log file);
// - what it captured is spooled before any network call, so nothing is lost when it is cut short.

import { writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createLog, readConfig } from './config.mjs';
import { deliverNow, drain } from './delivery.mjs';
import { callApi } from './http.mjs';
import { formatOutput, normalizeInput, sessionUuid } from './input.mjs';
import { Spool } from './spool.mjs';

/** When the hook's own code started (Node's start-up before it is not the hook's to shorten). */
const STARTED = performance.now();
const MAX_INPUT_BYTES = 32 * 1024 * 1024;
/** Sends stop this long before the hard limit, so claimed records are put back in order. */
const SEND_MARGIN_MS = 30;

/** Reads stdin to its end, or what came until the deadline; undefined on error or oversize. */
function readStdin(deadline) {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    if (stdin.isTTY) {
      resolve('');
      return;
    }
    const chunks = [];
    let size = 0;
    let settled = false;
    const done = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), Math.max(0, deadline - performance.now()));
    stdin.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_INPUT_BYTES) chunks.push(chunk);
    });
    stdin.on('end', () => done(size <= MAX_INPUT_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined));
    stdin.on('error', () => done(undefined));
  });
}

function parseInput(text) {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Runs `handler(hook)` for the hook `role` ('start', 'prompt', 'tool', 'compact' or 'end').
 * The handler spools what it captures, delivers within `hook.deadline`, and calls
 * `hook.setContext(text)` with what the agent should read.
 */
export function runHook(role, handler) {
  let config;
  let log = () => {};
  let spool;
  let context = '';
  let exiting = false;

  const finish = () => {
    if (exiting) return;
    exiting = true;
    try {
      spool?.releaseAll();
    } catch (error) {
      log('could not put back claimed records', error);
    }
    try {
      const out = formatOutput(config?.client ?? 'claude-code', role, context);
      if (out) writeSync(1, out);
    } catch {
      // The agent closed stdout: nothing to tell it.
    }
    process.exit(0);
  };
  const fail = (error) => {
    log('failed', error);
    finish();
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);

  const main = async () => {
    config = readConfig();
    log = createLog(config, role);
    const limit = STARTED + config.timeoutMs;
    setTimeout(
      () => {
        log(`out of time (${config.timeoutMs} ms)`);
        finish();
      },
      Math.max(0, limit - 5 - performance.now()),
    );
    if (!config.apiUrl || !config.apiKey) {
      if (config.debug) log('MEMORY_API_URL or MEMORY_API_KEY is not set: nothing to do');
      return;
    }
    const deadline = limit - SEND_MARGIN_MS;
    spool = new Spool(config.spoolDir, log, Math.max(60_000, config.timeoutMs * 4));
    const raw = parseInput(config.argvPayload ?? (await readStdin(deadline)));
    const input = normalizeInput(config.client, raw);
    const hook = {
      config,
      log,
      spool,
      input,
      deadline,
      session: input.sessionKey ? sessionUuid(config.family, input.sessionKey) : undefined,
      setContext: (text) => {
        context = text;
      },
      call: (options) => callApi(config, { deadline, ...options }),
      drain: (until = deadline) => drain(hook, until),
      deliverNow: (name, record, until = deadline) => deliverNow(hook, name, record, until),
    };
    if (!hook.session) {
      // Nothing to record from this input, but the spool can still go out.
      log(raw === undefined ? 'input is not JSON: ignored' : 'input has no session id: ignored');
      await hook.drain();
      return;
    }
    await handler(hook);
  };

  main().then(finish, fail);
}
