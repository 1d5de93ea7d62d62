import { createHash } from 'node:crypto';
import type { EventKind } from './session';

/**
 * Claude Code transcripts (`~/.claude/projects/<dir>/<session>.jsonl`): one JSON entry per line.
 * `user` and `assistant` entries carry `message.content` (a string, or blocks: text, tool_use,
 * tool_result, thinking, image) with `uuid`, `sessionId`, `cwd`, `gitBranch` and `timestamp`;
 * `summary` entries carry the conversation's title. Every other type (system, file-history-snapshot,
 * queue-operation, …) holds nothing a session keeps.
 */

/** Caps of what an imported event keeps (characters). */
export const TRANSCRIPT_LIMITS = {
  /** A line longer than this (bytes) is skipped, never held in memory whole. */
  maxLineBytes: 4 * 1024 * 1024,
  promptChars: 8_000,
  observationChars: 2_000,
  /** Each string inside a tool call's input. */
  toolInputStringChars: 500,
  /** A tool call's whole input, as JSON. */
  toolInputChars: 4_000,
  /**
   * Text is cut this far past its cap before the secret screen and to its cap after: a secret cut
   * by the first cut lies wholly beyond the second, so a half secret never slips past the screen.
   */
  screenMarginChars: 4_096,
  summaryChars: 16_000,
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** One event read from a transcript, before the secret screen. */
export interface TranscriptEvent {
  readonly kind: EventKind;
  readonly payload: Record<string, unknown>;
  /** Deterministic per line and block (`<line uuid>#<block>`): a re-import recognises it. */
  readonly ref: string;
}

export type TranscriptLine =
  /** Not a transcript entry: the line is counted as skipped. */
  | { readonly type: 'bad' }
  /** A well-formed entry that holds nothing to keep. */
  | { readonly type: 'ignored' }
  | { readonly type: 'summary'; readonly summary: string }
  | {
      readonly type: 'message';
      readonly sessionId: string | null;
      readonly cwd: string | null;
      readonly gitBranch: string | null;
      readonly timestamp: string | null;
      readonly events: TranscriptEvent[];
    };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const nonEmpty = (value: unknown): string | null => {
  const t = text(value)?.trim();
  return t ? t : null;
};

/** Reads one parsed line. `raw` (the line's text) keys the events of an entry without a uuid. */
export function readTranscriptLine(value: unknown, raw: string): TranscriptLine {
  if (!isObject(value) || typeof value.type !== 'string') return { type: 'bad' };
  if (value.type === 'summary') {
    const summary = nonEmpty(value.summary);
    return summary ? { type: 'summary', summary: cleanText(summary) } : { type: 'bad' };
  }
  if (value.type !== 'user' && value.type !== 'assistant') return { type: 'ignored' };
  const message = value.message;
  if (!isObject(message) || !(typeof message.content === 'string' || Array.isArray(message.content))) {
    return { type: 'bad' };
  }
  const base = typeof value.uuid === 'string' && UUID.test(value.uuid) ? value.uuid.toLowerCase() : hash(raw);
  const timestamp = text(value.timestamp);
  return {
    type: 'message',
    sessionId:
      typeof value.sessionId === 'string' && UUID.test(value.sessionId)
        ? value.sessionId.toLowerCase()
        : null,
    cwd: nonEmpty(value.cwd),
    gitBranch: nonEmpty(value.gitBranch),
    timestamp:
      timestamp !== null && ISO_TIME.test(timestamp) && !Number.isNaN(Date.parse(timestamp))
        ? timestamp
        : null,
    // Meta entries are what Claude Code adds itself (caveats, expanded commands), not the user's words.
    events:
      value.isMeta === true
        ? []
        : blocksOf(message.content).flatMap((block, index) => {
            const event = value.type === 'user' ? userEvent(block) : assistantEvent(block);
            return event ? [{ ...event, ref: `${base}#${index}` }] : [];
          }),
  };
}

type Block = Record<string, unknown>;
type Unkeyed = Omit<TranscriptEvent, 'ref'>;

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return (content as unknown[]).filter(isObject);
}

function userEvent(block: Block): Unkeyed | null {
  if (block.type === 'text') {
    const prompt = nonEmpty(block.text);
    return prompt
      ? { kind: 'prompt', payload: { text: preCap(prompt, TRANSCRIPT_LIMITS.promptChars) } }
      : null;
  }
  if (block.type === 'tool_result') {
    return {
      kind: 'observation',
      payload: {
        source: 'tool_result',
        ...(typeof block.tool_use_id === 'string' ? { tool_use_id: preCap(block.tool_use_id, 200) } : {}),
        ...(block.is_error === true ? { is_error: true } : {}),
        text: preCap(resultText(block.content), TRANSCRIPT_LIMITS.observationChars),
      },
    };
  }
  return null;
}

function assistantEvent(block: Block): Unkeyed | null {
  if (block.type === 'text') {
    const said = nonEmpty(block.text);
    return said
      ? {
          kind: 'observation',
          payload: { source: 'assistant', text: preCap(said, TRANSCRIPT_LIMITS.observationChars) },
        }
      : null;
  }
  if (block.type === 'tool_use') {
    const tool = nonEmpty(block.name);
    if (!tool) return null;
    return {
      kind: 'tool_call',
      payload: {
        tool: preCap(tool, 200),
        ...(typeof block.id === 'string' ? { tool_use_id: preCap(block.id, 200) } : {}),
        input: compactInput(block.input, 0),
      },
    };
  }
  // thinking / redacted_thinking: the model's private reasoning, not what the session did.
  return null;
}

/** A tool result's content: a string, or blocks of which the text ones count. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isObject)
    .map((block) => (block.type === 'text' ? (text(block.text) ?? '') : `[${String(block.type)}]`))
    .join('\n');
}

const MAX_DEPTH = 4;
const MAX_ITEMS = 20;

/** A tool input small enough to keep: long strings cut, deep or wide structures trimmed. */
function compactInput(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return preCap(value, TRANSCRIPT_LIMITS.toolInputStringChars);
  if (typeof value !== 'object' || value === null) return value ?? null;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => compactInput(item, depth + 1));
    return value.length > MAX_ITEMS ? [...items, `[${value.length - MAX_ITEMS} more]`] : items;
  }
  const entries = Object.entries(value);
  const kept = entries
    .slice(0, MAX_ITEMS)
    .map(([key, item]) => [cleanText(key).slice(0, 200), compactInput(item, depth + 1)]);
  if (entries.length > MAX_ITEMS) kept.push(['…', `${entries.length - MAX_ITEMS} more keys`]);
  return Object.fromEntries(kept);
}

/** Cut before the secret screen: the cap plus the screen margin. */
function preCap(value: string, cap: number): string {
  return cut(cleanText(value), cap + TRANSCRIPT_LIMITS.screenMarginChars);
}

/**
 * The final cut of a screened payload: every string to its kind's cap, and a tool input whose JSON
 * is still too long replaced by its cut JSON text.
 */
export function capScreenedPayload(
  kind: EventKind,
  payload: Record<string, unknown>,
): Record<string, unknown> {
  const cap = kind === 'prompt' ? TRANSCRIPT_LIMITS.promptChars : TRANSCRIPT_LIMITS.observationChars;
  const capped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (key === 'input') {
      const input = capStrings(value, TRANSCRIPT_LIMITS.toolInputStringChars);
      const json = JSON.stringify(input) ?? 'null';
      capped.input =
        json.length > TRANSCRIPT_LIMITS.toolInputChars ? cut(json, TRANSCRIPT_LIMITS.toolInputChars) : input;
    } else {
      capped[key] = capStrings(value, cap);
    }
  }
  return capped;
}

function capStrings(value: unknown, cap: number): unknown {
  if (typeof value === 'string') return cut(value, cap);
  if (Array.isArray(value)) return value.map((item) => capStrings(item, cap));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, capStrings(v, cap)]));
  return value;
}

/** The summary as a session keeps it (screened by the session path that stores it). */
export function capSummary(summary: string): string {
  return cut(summary, TRANSCRIPT_LIMITS.summaryChars);
}

function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  // Never split a surrogate pair: a lone half is not storable text.
  const end = /[\uD800-\uDBFF]/.test(value.charAt(max - 1)) ? max - 1 : max;
  return `${value.slice(0, end)}… [${value.length - end} more characters]`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Postgres stores neither NUL nor a lone UTF-16 surrogate; the transcript may hold both. */
function cleanText(value: string): string {
  return value.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
}

function hash(raw: string): string {
  return createHash('sha256').update(raw).digest('hex').slice(0, 32);
}
