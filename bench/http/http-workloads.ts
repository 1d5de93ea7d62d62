import { type GeneratedMemory } from '../corpus/memory-generator';
import { RECALL_LIMIT } from '../recall/recall-latency';
import { eventBatch, startSession } from '../sessions/event-ingest';
import type { ApiClient } from './api-client';
import { callerOf, keyOf, type HttpShape } from './http-shape';
import type { Call } from './closed-loop';

/** Store last: the memories it adds would otherwise grow the sets the reads after it search. */
export const WORKLOADS = ['recall', 'mcp recall', 'list', 'get', 'sync', 'event ingest', 'store'] as const;
export type WorkloadName = (typeof WORKLOADS)[number];

/** What each workload sends, for the report. */
export const WORKLOAD_REQUESTS: Readonly<Record<WorkloadName, string>> = {
  store: '`POST /api/memories` (a new memory each time)',
  recall: '`POST /api/memories/recall` (an unseen text, limit 10)',
  'mcp recall': '`tools/call memory_recall` at `POST /mcp` (an unseen text, limit 10)',
  list: '`GET /api/memories?limit=50`',
  get: '`GET /api/memories/:id` (a memory the caller may read)',
  sync: "`GET /api/memories/sync?limit=100` (a new copy's first page)",
  'event ingest': '`POST /api/sessions/:id/events` (10 events, a session per lane)',
};

/** The protocol version the SDK's client negotiates today; sent on every request after initialize. */
const MCP_PROTOCOL = '2025-06-18';
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_PROTOCOL };

/** A store body as a claude-memory-mcp client sends it; `tag` keeps each content unique. */
export function storeBody(memory: GeneratedMemory, tag: string, visibility: 'private' | 'team') {
  return {
    visibility,
    content: `${memory.content} (${tag})`,
    category: memory.category,
    tags: memory.tags.join(','),
    expanded_keywords: memory.expandedKeywords,
    importance: memory.importance,
    project: memory.project ?? undefined,
  };
}

export function nextMemory(shape: HttpShape): GeneratedMemory {
  const next = shape.stores.next();
  if (next.done) throw new Error('the store corpus ran dry');
  return next.value;
}

/**
 * The service side of every workload: one HTTP call per `Call`, with the caller's own key, through
 * keep-alive connections. MCP sends raw JSON-RPC as the SDK's Streamable HTTP client does after its
 * `initialize` (stateless server: one POST per tool call).
 */
export async function serviceCalls(
  api: ApiClient,
  apiUrl: string,
  shape: HttpShape,
  lanes: number,
): Promise<Record<WorkloadName, Call>> {
  // Each lane is one agent with its own session (lane k is member k of the shape).
  const sessions = await Promise.all(
    Array.from({ length: lanes }, (_, lane) => {
      const principal = callerOf(shape, lane);
      return startSession({ apiUrl, key: keyOf(shape, principal) });
    }),
  );
  await mcpInitialize(api, keyOf(shape, shape.principals[0]));
  const recallBody = () => ({ context: shape.queries.take(), limit: RECALL_LIMIT });
  return {
    store: async (slot, i) => {
      const key = keyOf(shape, callerOf(shape, i));
      await api.json(slot, {
        method: 'POST',
        path: '/api/memories',
        key,
        body: storeBody(nextMemory(shape), `http ${i}`, shape.visibility),
      });
    },
    recall: async (slot, i) => {
      const key = keyOf(shape, callerOf(shape, i));
      await api.json(slot, { method: 'POST', path: '/api/memories/recall', key, body: recallBody() });
    },
    'mcp recall': async (slot, i) => {
      const key = keyOf(shape, callerOf(shape, i));
      const answer = await mcpCall<{ isError?: boolean }>(api, slot, key, {
        id: i,
        method: 'tools/call',
        params: { name: 'memory_recall', arguments: recallBody() },
      });
      if (!answer.result || answer.result.isError)
        throw new Error(`memory_recall failed: ${JSON.stringify(answer).slice(0, 200)}`);
    },
    list: async (slot, i) => {
      const key = keyOf(shape, callerOf(shape, i));
      await api.json(slot, { method: 'GET', path: '/api/memories?limit=50', key });
    },
    get: async (slot, i) => {
      const principal = callerOf(shape, i);
      const ids = shape.readable.get(principal.userId) ?? [];
      const id = ids[(i * 7919) % ids.length];
      await api.json(slot, { method: 'GET', path: `/api/memories/${id}`, key: keyOf(shape, principal) });
    },
    sync: async (slot, i) => {
      const key = keyOf(shape, callerOf(shape, i));
      await api.json(slot, { method: 'GET', path: '/api/memories/sync?limit=100', key });
    },
    'event ingest': async (slot, i) => {
      const key = keyOf(shape, callerOf(shape, slot));
      const path = `/api/sessions/${sessions[slot]}/events`;
      await api.json(slot, { method: 'POST', path, key, body: { events: eventBatch(`http-${i}`) } }, 202);
    },
  };
}

async function mcpInitialize(api: ApiClient, key: string): Promise<void> {
  await mcpCall(api, 0, key, {
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: MCP_PROTOCOL,
      capabilities: {},
      clientInfo: { name: 'memory-bench', version: '1.0.0' },
    },
  });
}

/** One JSON-RPC request as its own POST (the server is stateless and answers JSON, not a stream). */
function mcpCall<R>(
  api: ApiClient,
  slot: number,
  key: string,
  request: { id: number; method: string; params: Record<string, unknown> },
): Promise<{ result?: R; error?: unknown }> {
  return api.json(slot, {
    method: 'POST',
    path: '/mcp',
    key,
    headers: MCP_HEADERS,
    body: { jsonrpc: '2.0', ...request },
  });
}
