// Configuration of the memory hooks, read once from the environment and the command line.
// No dependencies: the hooks run with whatever Node the agent has, straight from the plugin folder.

import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The agent name each supported client reports to the service (sessions' `agent`). */
const AGENTS = {
  'claude-code': 'claude-code',
  cursor: 'cursor',
  codex: 'codex',
  'codex-notify': 'codex',
};

const LOG_MAX_BYTES = 1024 * 1024;

function positiveInt(text, fallback) {
  const n = Number.parseInt(String(text ?? ''), 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

function argValue(argv, name) {
  const at = argv.indexOf(name);
  return at >= 0 && at + 1 < argv.length ? argv[at + 1] : undefined;
}

/**
 * Everything a hook needs to know. `apiUrl` is the service's base URL: a trailing `/mcp` (the
 * address the MCP client is configured with) is dropped, so both spellings work.
 */
export function readConfig(env = process.env, argv = process.argv.slice(2)) {
  const requested = argValue(argv, '--client') ?? 'claude-code';
  const client = requested in AGENTS ? requested : 'claude-code';
  const apiUrl = String(env.MEMORY_API_URL ?? '')
    .trim()
    .replace(/\/+$/, '')
    .replace(/\/mcp$/, '');
  return {
    client,
    /** The client family: session ids derive from it (Codex hooks and `notify` share sessions). */
    family: AGENTS[client],
    agent: (env.MEMORY_AGENT ?? '').trim() || AGENTS[client],
    apiUrl,
    apiKey: String(env.MEMORY_API_KEY ?? '').trim(),
    /** Hard limit of one hook run, from process start to exit. */
    timeoutMs: positiveInt(env.MEMORY_HOOK_TIMEOUT_MS, 1500),
    spoolDir: (env.MEMORY_SPOOL_DIR ?? '').trim() || join(homedir(), '.cache', 'memory-hooks'),
    debug: env.MEMORY_HOOK_DEBUG === '1',
    recallOnPrompt: env.MEMORY_RECALL_ON_PROMPT === '1',
    recallLimit: Math.min(positiveInt(env.MEMORY_RECALL_LIMIT, 3), 10),
    /** Characters of startup context asked for (the service trims to it). */
    contextBudget: positiveInt(env.MEMORY_CONTEXT_BUDGET, 6000),
    /** Tokens of startup context asked for; absent: the service's default (STARTUP_CONTEXT_TOKENS). */
    contextTokens: positiveInt(env.MEMORY_CONTEXT_TOKENS, undefined),
    /** Overrides the project the service derives from the git remote. */
    project: (env.MEMORY_PROJECT ?? '').trim() || undefined,
    /** Codex `notify` passes its JSON as the last argument instead of stdin. */
    argvPayload: client === 'codex-notify' ? argv[argv.length - 1] : undefined,
  };
}

function errorText(error) {
  if (error === undefined) return '';
  if (error instanceof Error) return `: ${error.message}`;
  return `: ${String(error)}`;
}

/**
 * A logger that never throws and never writes to stdout (stdout is what the agent reads): lines
 * go to `<spool dir>/hooks.log` (rotated at 1 MiB), and to stderr too with MEMORY_HOOK_DEBUG=1.
 */
export function createLog(config, hookName) {
  const path = join(config.spoolDir, 'hooks.log');
  return (message, error) => {
    const line = `${new Date().toISOString()} ${hookName}[${process.pid}] ${message}${errorText(error)}\n`;
    if (config.debug) {
      try {
        process.stderr.write(line);
      } catch {
        // stderr closed: nothing else to do.
      }
    }
    try {
      mkdirSync(config.spoolDir, { recursive: true, mode: 0o700 });
      try {
        if (statSync(path).size > LOG_MAX_BYTES) renameSync(path, `${path}.1`);
      } catch {
        // No log yet.
      }
      appendFileSync(path, line, { mode: 0o600 });
    } catch {
      // An unwritable log must not break the agent.
    }
  };
}
