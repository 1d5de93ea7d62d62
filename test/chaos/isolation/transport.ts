import { Pool } from 'undici';
import type { ChaosTally } from '@app/testing';
import type { Actor, Outcome } from './world';

/** One answer, REST or MCP, with the raw text every leak check reads. */
export interface Reply {
  readonly via: 'rest' | 'mcp';
  readonly label: string;
  readonly status: number;
  readonly outcome: Outcome;
  /** REST error `code`, or the `[code]` of an MCP tool error. */
  readonly code: string | null;
  readonly text: string;
  /** REST: the parsed body; MCP: the tool's structuredContent. */
  readonly body: unknown;
}

/**
 * The lane's tenants allow admins private access (laneActors), and each admin request gives a reason:
 * the model's admin reads and changes every memory of its tenant. The default (an admin is a member
 * for private memories) is test/e2e/admin-private-access.test.ts.
 */
const accessHeaders = (actor: Actor): Record<string, string> =>
  actor.admin ? { 'x-private-access-reason': 'isolation fuzz: the admin acts on every memory' } : {};

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

const REST_OUTCOMES: Record<number, Outcome> = {
  400: 'bad_request',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
};

const MCP_OUTCOMES: Record<string, Outcome> = {
  memory_not_found: 'not_found',
  session_not_found: 'not_found',
  user_not_found: 'not_found',
  forbidden: 'forbidden',
  session_not_writable: 'forbidden',
  memory_not_deleted: 'conflict',
  share_with_self: 'bad_request',
};

/**
 * Keep-alive undici connections to the API; every call is counted on the tally (REST and MCP
 * apart) and a 5xx (or an MCP tool error the server reports as its own failure) fails the suite.
 */
export class FuzzTransport {
  private readonly pool: Pool;
  private rpcId = 0;

  constructor(
    url: string,
    private readonly tally: ChaosTally,
    connections = 24,
  ) {
    this.pool = new Pool(url, { connections, pipelining: 1 });
  }

  async rest(actor: Actor, method: string, path: string, body?: unknown, label?: string): Promise<Reply> {
    const what = label ?? `${method} ${path.replace(/\/\d+/g, '/:id').split('?')[0]}`;
    const response = await this.pool.request({
      method: method as 'GET',
      path,
      headers: {
        authorization: `Bearer ${actor.key}`,
        ...accessHeaders(actor),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    const status = response.statusCode;
    this.tally.status(status, what);
    this.tally.add('REST calls');
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const code = (parsed as { code?: string } | undefined)?.code ?? null;
    const outcome: Outcome = status < 300 ? 'ok' : (REST_OUTCOMES[status] ?? 'other');
    return { via: 'rest', label: what, status, outcome, code, text, body: parsed };
  }

  async mcp(actor: Actor, tool: string, args: Record<string, unknown>): Promise<Reply> {
    const what = `MCP ${tool}`;
    const response = await this.pool.request({
      method: 'POST',
      path: '/mcp',
      headers: {
        authorization: `Bearer ${actor.key}`,
        ...accessHeaders(actor),
        'content-type': 'application/json',
        ...MCP_HEADERS,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++this.rpcId,
        method: 'tools/call',
        params: { name: tool, arguments: args },
      }),
    });
    const text = await response.body.text();
    const status = response.statusCode;
    this.tally.status(status, what);
    this.tally.add('MCP calls');
    let answer: {
      result?: { isError?: boolean; content?: { text?: string }[]; structuredContent?: unknown };
      error?: { message?: string };
    } = {};
    try {
      answer = JSON.parse(text);
    } catch {
      /* kept as text */
    }
    if (status >= 300 || !answer.result) {
      return { via: 'mcp', label: what, status, outcome: 'other', code: null, text, body: answer };
    }
    const { isError, content, structuredContent } = answer.result;
    if (!isError)
      return { via: 'mcp', label: what, status, outcome: 'ok', code: null, text, body: structuredContent };
    const message = content?.[0]?.text ?? '';
    const code = /\[([a-z_]+)\]/.exec(message)?.[1] ?? null;
    // The tool wrapper names the request id only for the server's own failures (a 5xx over REST).
    if (/\(request id /.test(message)) {
      this.tally.add('5xx');
      this.tally.check(`${what} answered without a server failure`, false, () => message.slice(0, 300));
    }
    return {
      via: 'mcp',
      label: what,
      status,
      outcome: MCP_OUTCOMES[code ?? ''] ?? 'other',
      code,
      text,
      body: null,
    };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
