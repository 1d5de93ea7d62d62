// What each client passes to a hook, turned into one shape; and what each client reads back.

import { createHash } from 'node:crypto';

/** Fixed namespace of the session ids these hooks derive (UUIDv5-style, see `sessionUuid`). */
const NAMESPACE = Buffer.from('220f8ce71d72481cad53f00b8953199e', 'hex');

/** Cap per text field of a tool call; a prompt gets more, well under the service's 16 KiB per event. */
const FIELD_JSON_BYTES = 600;
export const PROMPT_JSON_BYTES = 8 * 1024;

/** Tool input fields worth keeping: what was run, read, edited or searched; never file contents. */
const TOOL_FIELDS = [
  'command',
  'file_path',
  'notebook_path',
  'path',
  'pattern',
  'glob',
  'url',
  'query',
  'description',
  'subagent_type',
];

const text = (value) => (typeof value === 'string' && value.length > 0 ? value : undefined);

/**
 * The service session id of one agent run: a UUID derived from the client's own session id
 * (name-based, SHA-1, version 5 bits), so every hook of the run addresses the same session
 * without keeping state between runs.
 */
export function sessionUuid(client, key) {
  const bytes = createHash('sha1').update(NAMESPACE).update(`${client}:${key}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The text cut so that its JSON encoding fits `maxBytes` (escapes count), marked when cut. */
export function capText(value, maxBytes) {
  let result = String(value);
  const fits = (s) => Buffer.byteLength(JSON.stringify(s)) <= maxBytes;
  if (fits(result)) return result;
  const marker = ' …[truncated]';
  while (result.length > 0 && !fits(result + marker)) {
    result = result.slice(0, Math.floor(result.length * 0.8));
  }
  // Do not leave half of a surrogate pair at the cut.
  return result.replace(/[\uD800-\uDBFF]$/, '') + marker;
}

function parseMaybeJson(value) {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Cursor reports tools through several events with their own fields. */
function cursorTool(raw) {
  const event = raw.hook_event_name;
  if (event === 'afterShellExecution' || (text(raw.command) && !text(raw.tool_name))) {
    return { name: 'Shell', input: { command: raw.command } };
  }
  if (event === 'afterFileEdit' && text(raw.file_path))
    return { name: 'Edit', input: { file_path: raw.file_path } };
  if (text(raw.tool_name)) {
    const name = event === 'afterMCPExecution' ? `mcp:${raw.tool_name}` : raw.tool_name;
    return { name, input: parseMaybeJson(raw.tool_input) };
  }
  return undefined;
}

/**
 * `{sessionKey, cwd, event, source, prompt, tool}` from a client's hook input:
 * - Claude Code and Codex hooks: `session_id`, `cwd`, `hook_event_name`, `prompt`, `tool_name`,
 *   `tool_input`, `tool_response` on stdin;
 * - Cursor hooks: `conversation_id`, `workspace_roots`, and per event `prompt`, `command`,
 *   `file_path`, `tool_name`/`tool_input`;
 * - Codex `notify`: `thread-id`, `cwd`, `input-messages` as the last argument.
 */
export function normalizeInput(client, raw) {
  const r = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
  if (client === 'cursor') {
    const roots = Array.isArray(r.workspace_roots) ? r.workspace_roots : [];
    return {
      sessionKey: text(r.conversation_id) ?? text(r.session_id),
      cwd: text(roots[0]) ?? text(r.cwd),
      event: text(r.hook_event_name),
      prompt: text(r.prompt),
      tool: cursorTool(r),
    };
  }
  if (client === 'codex-notify') {
    const messages = Array.isArray(r['input-messages']) ? r['input-messages'].filter(text) : [];
    return {
      sessionKey: text(r['thread-id']),
      cwd: text(r.cwd),
      event: text(r.type),
      prompt: messages.join('\n\n') || undefined,
    };
  }
  return {
    sessionKey: text(r.session_id),
    cwd: text(r.cwd),
    event: text(r.hook_event_name),
    source: text(r.source),
    prompt: text(r.prompt),
    tool: text(r.tool_name)
      ? { name: r.tool_name, input: r.tool_input, response: r.tool_response }
      : undefined,
  };
}

/** Tools that read or change one file, and the input field naming it. */
const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
const FILE_FIELDS = ['file_path', 'notebook_path', 'path'];

/** The file a Read, Edit, Write, MultiEdit or NotebookEdit call names (as given), else undefined. */
export function toolFile(tool) {
  const input = tool?.input;
  if (!FILE_TOOLS.has(tool?.name) || !input || typeof input !== 'object') return undefined;
  for (const key of FILE_FIELDS) if (text(input[key])) return input[key];
  return undefined;
}

/**
 * The payload of a `tool_call` event: the tool, a compact summary of its input, whether it failed,
 * and `file` (`{path, hash?}`: repository-relative path and git blob id) when it named a file of
 * the working tree.
 */
export function toolCallPayload(tool, file) {
  const payload = { tool: capText(tool.name, 200) };
  const input = tool.input;
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const picked = {};
    for (const key of TOOL_FIELDS) {
      if (text(input[key])) picked[key] = capText(input[key], FIELD_JSON_BYTES);
    }
    payload.input =
      Object.keys(picked).length > 0 ? picked : capText(JSON.stringify(input), FIELD_JSON_BYTES);
  } else if (input !== undefined && input !== null) {
    payload.input = capText(typeof input === 'string' ? input : JSON.stringify(input), FIELD_JSON_BYTES);
  }
  const response = tool.response;
  if (
    response &&
    typeof response === 'object' &&
    (response.is_error === true || response.success === false)
  ) {
    payload.error = capText(String(response.error ?? response.message ?? 'failed'), 300);
  }
  if (file) payload.file = file;
  return payload;
}

/**
 * What the client reads on stdout. Claude Code and Codex add a SessionStart or UserPromptSubmit
 * hook's plain stdout to the context; Cursor expects JSON (`additional_context` from
 * sessionStart, `continue` from beforeSubmitPrompt, an empty object elsewhere).
 */
export function formatOutput(client, role, context) {
  if (client === 'cursor') {
    if (role === 'start') return JSON.stringify(context ? { additional_context: context } : {});
    if (role === 'prompt') return JSON.stringify({ continue: true });
    return '{}';
  }
  if (client === 'codex-notify' || !context) return '';
  return context.endsWith('\n') ? context : `${context}\n`;
}
