import { urllibClient } from './urllib-client';

/**
 * claude-memory-mcp's MCP server (ViktorBarzin/claude-memory-mcp, src/claude_memory/mcp_server.py and
 * sync.py at 5151bbe0d554d6c201b41a49ea25f9c9b7953f19) re-enacted tool by tool: the same request
 * for the same arguments, and the same text built from the answer. A field the client indexes
 * (`result['x']`) must be present or the tool fails, as Python's KeyError would make it; one it
 * reads with `.get()` may be absent. See docs/compatibility.md.
 */

/** urllib's HTTPError, wrapped by `_api_request` as `RuntimeError("API error <code>: <body>")`. */
export class ClientApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`API error ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
  }
}

type Json = Record<string, unknown>;
type Args = Record<string, unknown>;

/** `obj['key']`: a missing key fails the tool (KeyError). */
export function field(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== 'object' || !(key in obj)) {
    throw new Error(`KeyError: '${key}' in ${JSON.stringify(obj)}`);
  }
  return (obj as Json)[key];
}

/** `f"{x:.1f}"`: only numbers format (a string or null would raise). */
function f1(value: unknown): string {
  if (typeof value !== 'number')
    throw new Error(`TypeError: cannot format ${JSON.stringify(value)} with .1f`);
  return value.toFixed(1);
}

/** Python's `str()` of a JSON value as the f-strings print it. */
const str = (value: unknown) => (value === null ? 'None' : String(value));
const orNone = (value: unknown) =>
  value === undefined || value === null || value === '' ? 'none' : str(value);
const getList = (obj: Json, key: string): Json[] => (obj[key] as Json[] | undefined) ?? [];

export function claudeMemoryMcpClient(baseUrl: string, apiKey: string) {
  const raw = urllibClient(baseUrl, apiKey);
  /** `_api_request`: non-2xx raises; the answer must be JSON (`json.loads` of the body). */
  const api = async (method: string, path: string, body?: Json): Promise<Json> => {
    const res = await raw<Json>(method, path, body);
    if (res.status < 200 || res.status > 299) throw new ClientApiError(res.status, res.body);
    if (res.body === undefined || typeof res.body !== 'object') {
      throw new Error(`JSONDecodeError: ${res.status} answered ${JSON.stringify(res.body)}`);
    }
    return res.body;
  };

  const tools = {
    async memory_store(args: Args): Promise<string> {
      const importance = Math.max(0, Math.min(1, Number(args.importance ?? 0.5)));
      const result = await api('POST', '/api/memories', {
        content: args.content,
        category: args.category ?? 'facts',
        tags: args.tags ?? '',
        expanded_keywords: args.expanded_keywords ?? '',
        importance,
        force_sensitive: Boolean(args.force_sensitive ?? false),
      });
      return `Stored memory #${str(field(result, 'id'))} in category '${str(field(result, 'category'))}' with importance ${f1(field(result, 'importance'))}`;
    },

    /** `_recall_remote`: an API error becomes a "try again" text instead of a tool error. */
    async memory_recall(args: Args): Promise<string> {
      const category = (args.category as string | undefined) ?? null;
      const sortBy = (args.sort_by as string | undefined) ?? 'importance';
      let result: Json;
      try {
        result = await api('POST', '/api/memories/recall', {
          context: args.context,
          expanded_query: args.expanded_query ?? '',
          category,
          sort_by: sortBy,
          limit: args.limit ?? 10,
        });
      } catch (error) {
        if (!(error instanceof ClientApiError)) throw error;
        return `Memory recall did not complete within 30s — the semantic search backend is slow or unreachable (${error.message}). Please try again.`;
      }
      const rows = getList(result, 'memories');
      if (rows.length === 0) {
        return `No memories found matching: ${str(args.context)}${category ? ` in category '${category}'` : ''}`;
      }
      const lines = rows.map(
        (row) =>
          `#${str(field(row, 'id'))} [${str(field(row, 'category'))}] (importance: ${f1(field(row, 'importance'))}) ${str(field(row, 'content'))}` +
          `\n  Tags: ${orNone(row.tags)} | Stored: ${str(field(row, 'created_at'))}`,
      );
      const sortDesc = sortBy === 'relevance' ? 'by relevance' : 'by importance';
      return `Found ${rows.length} memories${category ? ` in '${category}'` : ''} (${sortDesc}):\n\n${lines.join('\n\n')}`;
    },

    async memory_list(args: Args = {}): Promise<string> {
      const category = args.category as string | undefined;
      let params = `?limit=${str(args.limit ?? 20)}`;
      if (category) params += `&category=${category}`;
      const rows = getList(await api('GET', `/api/memories${params}`), 'memories');
      if (rows.length === 0)
        return category ? `No memories in category '${category}'` : 'No memories stored yet';
      const lines = rows.map(
        (row) =>
          `#${str(field(row, 'id'))} [${str(field(row, 'category'))}] ${str(field(row, 'content'))}` +
          `\n  Importance: ${f1(field(row, 'importance'))} | Tags: ${orNone(row.tags)} | Stored: ${str(field(row, 'created_at'))}`,
      );
      return `Recent memories${category ? ` in '${category}'` : ''} (${rows.length} shown):\n\n${lines.join('\n\n')}`;
    },

    async memory_delete(args: Args): Promise<string> {
      const result = await api('DELETE', `/api/memories/${str(args.id)}`);
      return `Deleted memory #${str(field(result, 'deleted'))}: ${str(field(result, 'preview'))}...`;
    },

    async secret_get(args: Args): Promise<string> {
      const result = await api('POST', `/api/memories/${str(args.id)}/secret`);
      return `#${str(field(result, 'id'))} [${str(field(result, 'category'))}] ${str(field(result, 'content'))}`;
    },

    async memory_share(args: Args): Promise<string> {
      const result = await api('POST', `/api/memories/${str(args.id)}/share`, {
        shared_with: args.shared_with,
        permission: args.permission ?? 'read',
      });
      return `Shared memory #${str(field(result, 'shared'))} with ${str(field(result, 'with'))} (permission: ${str(field(result, 'permission'))})`;
    },

    async memory_unshare(args: Args): Promise<string> {
      const result = await api('DELETE', `/api/memories/${str(args.id)}/share/${str(args.shared_with)}`);
      return `Revoked sharing of memory #${str(field(result, 'unshared'))} from ${str(field(result, 'from'))}`;
    },

    async memory_share_tag(args: Args): Promise<string> {
      const result = await api('POST', '/api/memories/share-tag', {
        tag: args.tag,
        shared_with: args.shared_with,
        permission: args.permission ?? 'read',
      });
      return `Shared tag '${str(field(result, 'shared_tag'))}' with ${str(field(result, 'with'))} (permission: ${str(field(result, 'permission'))})`;
    },

    async memory_unshare_tag(args: Args): Promise<string> {
      await api('DELETE', '/api/memories/share-tag', { tag: args.tag, shared_with: args.shared_with });
      return `Revoked tag sharing of '${str(args.tag)}' from ${str(args.shared_with)}`;
    },

    async memory_update(args: Args): Promise<string> {
      const body: Json = {};
      for (const name of ['content', 'tags', 'importance', 'expanded_keywords']) {
        if (args[name] !== undefined && args[name] !== null) body[name] = args[name];
      }
      if (Object.keys(body).length === 0) throw new Error('At least one field to update is required');
      await api('PUT', `/api/memories/${str(args.id)}`, body);
      return `Updated memory #${str(args.id)}`;
    },

    async memory_shared_with_me(): Promise<string> {
      const memories = getList(await api('GET', '/api/memories/shared-with-me'), 'memories');
      if (memories.length === 0) return 'No memories have been shared with you';
      const lines = memories.map(
        (m) =>
          `#${str(field(m, 'id'))} [${str(field(m, 'category'))}] (from: ${str(field(m, 'shared_by'))}, ${str(field(m, 'permission'))}) ${str(field(m, 'content'))}` +
          `\n  Tags: ${orNone(m.tags)}`,
      );
      return `Memories shared with you (${memories.length}):\n\n${lines.join('\n\n')}`;
    },

    async memory_my_shares(): Promise<string> {
      const result = await api('GET', '/api/memories/my-shares');
      const memShares = getList(result, 'memory_shares');
      const tagShares = getList(result, 'tag_shares');
      if (memShares.length === 0 && tagShares.length === 0) return "You haven't shared any memories or tags";
      const lines: string[] = [];
      if (memShares.length > 0) {
        lines.push(`Memory shares (${memShares.length}):`);
        for (const s of memShares) {
          lines.push(
            `  #${str(field(s, 'memory_id'))} -> ${str(field(s, 'shared_with'))} (${str(field(s, 'permission'))}): ${str(field(s, 'preview'))}`,
          );
        }
      }
      if (tagShares.length > 0) {
        lines.push(`Tag shares (${tagShares.length}):`);
        for (const s of tagShares) {
          lines.push(
            `  tag '${str(field(s, 'tag'))}' -> ${str(field(s, 'shared_with'))} (${str(field(s, 'permission'))})`,
          );
        }
      }
      return lines.join('\n');
    },
  };

  return { tools, raw, api };
}
