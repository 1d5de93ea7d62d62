// What the hooks read from the service for the agent: the startup context, and recall on a prompt
// with the facts of the working tree (which files differ from HEAD, as paths and blob ids).

import { performance } from 'node:perf_hooks';
import { changesSince, MAX_CHANGED_PATHS, workTree } from './git.mjs';
import { callApi, isOk } from './http.mjs';
import { capText } from './input.mjs';
import { readSessionState } from './state.mjs';

/** At most this much of the prompt hook's time goes to git before a recall. */
const TREE_BUDGET_MS = 600;

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
 * The startup context block for `project` (on `branch`: memories scoped to that branch are listed
 * too): `GET /api/context/startup` answers it ready to inject (`text`). A service without that route
 * (404) still has the MCP tool `startup_context`, called once over stateless MCP. Answers '' when
 * neither answers in time (or the key is refused).
 */
export async function startupContext(hook, project, deadline, branch) {
  const query = new URLSearchParams({ budget: String(hook.config.contextBudget) });
  if (hook.config.contextTokens) query.set('tokens', String(hook.config.contextTokens));
  if (project) query.set('project', project);
  // An older service ignores a query parameter it does not know.
  if (project && branch) query.set('branch', branch);
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
 * The working tree's facts for a recall (`tree`): repository, branch, HEAD, and the files not
 * committed yet with their blob ids now (null: deleted; a rename lists the old path as deleted), so
 * the service serves memories anchored to an older version of them as stale. Without paths when git
 * does not list them in time; undefined outside a repository with commits or without a repository
 * identity.
 */
export async function treeFacts(hook, deadline) {
  const tree = await workTree(hook.input.cwd, deadline);
  const repo = tree?.remote ?? hook.config.project ?? readSessionState(hook.config, hook.session).project;
  if (!tree?.head || !repo) return undefined;
  const facts = { repo, ...(tree.branch ? { branch: tree.branch } : {}), commit: tree.head };
  const changes = await changesSince(tree.top, tree.head, deadline);
  if (!changes) {
    hook.log('recall without changed paths: git did not list them in time');
    return facts;
  }
  const paths = new Map();
  for (const change of changes) {
    if (change.from && !paths.has(change.from)) paths.set(change.from, null);
    paths.set(change.path, change.hash ?? null);
  }
  const listed = [...paths].slice(0, MAX_CHANGED_PATHS).map(([path, hash]) => ({ path, hash }));
  return { ...facts, paths: listed };
}

/** Whether an MCP tool result refuses the `tree` argument (a service that predates it, or a path it does not take). */
function refusedTree(body) {
  const result = body && typeof body === 'object' ? body.result : undefined;
  if (!result?.isError || !Array.isArray(result.content)) return false;
  return result.content.some((part) => typeof part?.text === 'string' && part.text.includes('"tree"'));
}

/**
 * The top recall results for a prompt; '' when there are none (or no time). The text is the MCP
 * tool `memory_recall`'s, so the hook prints memories exactly as the service frames them for an
 * agent: quoted data with author and date, screened for secrets with the service's current rules,
 * text that addresses the agent marked (docs/security.md, "Recalled text is data").
 */
export async function recallForPrompt(hook, prompt, deadline) {
  const tree = await treeFacts(hook, Math.min(deadline, performance.now() + TREE_BUDGET_MS));
  const args = { context: capText(prompt, 4000), limit: hook.config.recallLimit };
  let result = await callTool(hook, 'memory_recall', tree ? { ...args, tree } : args, deadline);
  if (tree && refusedTree(result.body)) {
    // Recall without the tree's facts rather than no recall at all.
    result = await callTool(hook, 'memory_recall', args, deadline);
  }
  if (!isOk(result)) hook.log(`no recall: ${result.error ?? `HTTP ${result.status}`}`);
  const memories = isOk(result) ? result.body?.result?.structuredContent?.memories : undefined;
  if (!Array.isArray(memories) || memories.length === 0) return '';
  const text = toolText(result.body).trim();
  return text ? `Team memories that may be relevant to this prompt (memory_get <id> for more):\n${text}` : '';
}
