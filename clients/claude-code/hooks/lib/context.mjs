// What the hooks read from the service for the agent: the startup context, recall on a prompt,
// and the git facts of the working directory that identify the project.

import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { callApi, isOk } from './http.mjs';
import { capText } from './input.mjs';

/** `git` must answer fast; a slow file system or a hung credential helper must not stall the agent. */
const GIT_TIMEOUT_MS = 400;

function git(cwd, args, timeout) {
  return new Promise((resolve) => {
    try {
      execFile(
        'git',
        ['-C', cwd, ...args],
        { timeout, windowsHide: true, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
        (error, stdout) => resolve(error ? undefined : String(stdout).trim() || undefined),
      );
    } catch {
      resolve(undefined);
    }
  });
}

/** `{git_remote, git_branch}` of the directory (either absent when git or the repository is). */
export async function gitFacts(cwd, deadline) {
  const timeout = Math.min(GIT_TIMEOUT_MS, Math.floor(deadline - performance.now()) - 50);
  if (!cwd || timeout < 20) return {};
  const [remote, branch] = await Promise.all([
    git(cwd, ['remote', 'get-url', 'origin'], timeout),
    // Also names the branch of a repository without commits; fails on a detached HEAD (no branch).
    git(cwd, ['symbolic-ref', '--short', '-q', 'HEAD'], timeout),
  ]);
  return { ...(remote ? { git_remote: remote } : {}), ...(branch ? { git_branch: branch } : {}) };
}

/** The text of an MCP tool result, or '' for an error result or an unexpected answer. */
function toolText(body) {
  const result = body && typeof body === 'object' ? body.result : undefined;
  if (!result || result.isError || !Array.isArray(result.content)) return '';
  return result.content
    .filter((part) => part && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/**
 * The startup context block for `project`: `GET /api/context/startup` answers it ready to inject
 * (`text`). A service without that route (404) still has the MCP tool `startup_context`, called
 * once over stateless MCP. Answers '' when neither answers in time (or the key is refused).
 */
export async function startupContext(hook, project, deadline) {
  const query = new URLSearchParams({ budget: String(hook.config.contextBudget) });
  if (hook.config.contextTokens) query.set('tokens', String(hook.config.contextTokens));
  if (project) query.set('project', project);
  const route = await callApi(hook.config, {
    method: 'GET',
    path: `/api/context/startup?${query}`,
    deadline,
  });
  if (isOk(route)) return typeof route.body?.text === 'string' ? route.body.text.trim() : '';
  if (route.status === 0 || route.status === 401 || route.status === 403 || route.status >= 500) {
    hook.log(`no startup context: ${route.error ?? `HTTP ${route.status}`}`);
    return '';
  }
  // 404: a service without the route. Another refusal (say, a budget it does not take) is logged
  // and answered the same way, so the agent still gets its context.
  if (route.status !== 404) hook.log(`startup context route refused: HTTP ${route.status}`);
  const mcp = await callTool(hook, 'startup_context', project ? { project } : {}, deadline);
  if (!isOk(mcp)) hook.log(`no startup context over MCP: ${mcp.error ?? `HTTP ${mcp.status}`}`);
  return capText(toolText(mcp.body), hook.config.contextBudget).trim();
}

/** One stateless MCP call of `tool` (a JSON answer, not a stream). */
function callTool(hook, tool, args, deadline) {
  return callApi(hook.config, {
    method: 'POST',
    path: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
    deadline,
  });
}

/**
 * The top recall results for a prompt; '' when there are none (or no time). The text is the MCP
 * tool `memory_recall`'s, so the hook prints memories exactly as the service frames them for an
 * agent: quoted data with author and date, screened for secrets with the service's current rules,
 * text that addresses the agent marked (docs/security.md, "Recalled text is data").
 */
export async function recallForPrompt(hook, prompt, deadline) {
  const args = { context: capText(prompt, 4000), limit: hook.config.recallLimit };
  const result = await callTool(hook, 'memory_recall', args, deadline);
  if (!isOk(result)) hook.log(`no recall: ${result.error ?? `HTTP ${result.status}`}`);
  const memories = isOk(result) ? result.body?.result?.structuredContent?.memories : undefined;
  if (!Array.isArray(memories) || memories.length === 0) return '';
  const text = toolText(result.body).trim();
  return text ? `Team memories that may be relevant to this prompt (memory_get <id> for more):\n${text}` : '';
}
