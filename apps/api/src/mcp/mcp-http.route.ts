import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { addRequestLogFields, RequestLog, type McpRequestSummary } from '@app/observability';
import { AuthenticateApiKeyUseCase, GrantPrivateAccessUseCase, type Principal } from '@app/tenancy';
import { RequestValidationError } from '../http/request-validation.error';
import { rateLimitCharge, type RateLimitCharge } from '../rate-limit/register-rate-limit';
import { authenticationHook, toAuthInfo } from './mcp-auth';
import { originHook, PREFLIGHT_HEADERS } from './mcp-origin.hook';
import { McpServerFactory } from './mcp-server.factory';

export const MCP_PATH = '/mcp';

const jsonRpcError = (code: number, message: string) =>
  JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * `POST /mcp`: MCP Streamable HTTP in stateless mode, mounted on the Fastify instance outside the
 * `/api` prefix. Hooks refuse foreign origins (403) and missing or invalid keys (401) before the
 * body is read; the handler hands the raw request, response and parsed body to the SDK transport.
 */
@Injectable()
export class McpHttpRoute implements OnModuleInit {
  private readonly logger = new Logger('Mcp');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly servers: McpServerFactory,
    @Inject(AuthenticateApiKeyUseCase) private readonly authenticate: AuthenticateApiKeyUseCase,
    @Inject(GrantPrivateAccessUseCase) private readonly grant: GrantPrivateAccessUseCase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly requestLog: RequestLog,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Outside Nest's middleware: each request is logged here, refusals included, like every other.
    const logged: onRequestHookHandler = (request, reply, done) => {
      this.requestLog.start(request.raw, reply.raw);
      done();
    };
    const checkOrigin = [logged, originHook(this.config.mcp)];
    fastify.route({
      method: 'POST',
      url: MCP_PATH,
      // Counted per JSON-RPC message once the body is read (below and in each tool), not per request.
      config: { rateLimit: false },
      onRequest: [...checkOrigin, authenticationHook(this.authenticate, this.grant)],
      handler: (request, reply) => this.handle(request, reply),
      errorHandler: parseErrorAsJsonRpc,
    });
    // Browser preflight; carries no key, so only the origin is checked.
    fastify.route({
      method: 'OPTIONS',
      url: MCP_PATH,
      onRequest: checkOrigin,
      handler: (_request, reply) => reply.code(204).headers(PREFLIGHT_HEADERS).send(),
    });
    // Stateless: no standalone SSE stream to open (GET) and no session to end (DELETE).
    fastify.route({
      method: ['GET', 'DELETE'],
      url: MCP_PATH,
      onRequest: checkOrigin,
      handler: (_request, reply) =>
        reply
          .code(405)
          .header('allow', 'POST')
          .type('application/json')
          .send(jsonRpcError(-32000, 'Method not allowed: this server is stateless; use POST.')),
    });
  }

  private async handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (Array.isArray(request.body) && request.body.length === 0) {
      // JSON-RPC 2.0: an empty batch is an Invalid Request (the SDK would acknowledge it with 202).
      await reply
        .code(400)
        .type('application/json')
        .send(jsonRpcError(-32600, 'Invalid Request: an empty batch holds no message'));
      return;
    }
    const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
    addRequestLogFields(request.raw, { mcp: summarize(messages) });
    const max = this.config.mcp.maxBatchMessages;
    if (messages.length > max) {
      // Refused whole before any message runs or is counted against the key's budgets.
      await reply
        .code(413)
        .type('application/json')
        .send(
          jsonRpcError(
            -32600,
            `Invalid Request: a batch may hold at most ${max} messages; this one holds ${messages.length}. Nothing was run.`,
          ),
        );
      return;
    }
    const principal = request.principal as Principal;
    const charge = rateLimitCharge(request);
    if (charge && (await refuseOverBudget(request, reply, charge))) return;
    const server = this.servers.create();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // The SDK writes the response itself; keep the headers hooks set (rate limit, CORS).
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      const raw = Object.assign(request.raw, { auth: toAuthInfo(principal, charge) });
      // `null` rather than undefined for an empty body: the SDK must not read the consumed stream.
      await transport.handleRequest(raw, reply.raw, request.body ?? null);
    } catch (error) {
      this.logger.error({ err: error, reqId: request.id }, 'MCP request failed');
      sendInternalError(reply.raw);
    }
  }
}

/**
 * Every JSON-RPC message of the body counts once against the caller's budgets: a tool call in its
 * tool (against writes or reads, see defineTool), every other message (initialize, tools/list,
 * notifications) here, against reads. Answers 429 with a JSON-RPC error (and returns true) when
 * those exceed the reads budget; a batch counts each of its messages.
 */
async function refuseOverBudget(
  request: FastifyRequest,
  reply: FastifyReply,
  charge: RateLimitCharge,
): Promise<boolean> {
  const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
  const protocol = messages.filter((m) => (m as { method?: unknown } | null)?.method !== 'tools/call');
  for (let i = 0; i < protocol.length; i++) {
    const verdict = await charge('reads');
    // The first message shows what is left: a batch that cannot fit is refused there, and the
    // rest of it is not counted.
    const cannotFit = i === 0 && verdict.max > 0 && verdict.remaining < protocol.length - 1;
    if (verdict.limited || cannotFit) {
      const after = verdict.retryAfterSeconds;
      await reply
        .code(429)
        .headers({
          'retry-after': String(after),
          'ratelimit-limit': String(verdict.max),
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(after),
        })
        .type('application/json')
        .send(
          jsonRpcError(
            -32000,
            cannotFit
              ? `Rate limit exceeded: this batch needs ${protocol.length} reads and ${verdict.remaining + 1} of this key's ${verdict.max} per minute are left; retry in ${after} s`
              : `Rate limit exceeded: ${verdict.max} reads per minute for this key; retry in ${after} s`,
          ),
        );
      return true;
    }
  }
  return false;
}

/** The methods and tool names of a request's messages (each once, in order), never their arguments. */
function summarize(messages: readonly unknown[]): McpRequestSummary {
  const methods = new Set<string>();
  const tools = new Set<string>();
  for (const message of messages) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    if (typeof method !== 'string') continue;
    methods.add(method.slice(0, 64));
    if (method === 'tools/call' && typeof params?.name === 'string') tools.add(params.name.slice(0, 64));
  }
  return { messages: messages.length, methods: [...methods].slice(0, 20), tools: [...tools].slice(0, 20) };
}

/**
 * A body that is not JSON answers as JSON-RPC says: HTTP 400 with a Parse error (-32700), which MCP
 * clients understand. Any other error goes on to the global handler (`{detail, code}`).
 */
function parseErrorAsJsonRpc(error: unknown, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof RequestValidationError && error.code === 'malformed_json') {
    return reply
      .code(400)
      .type('application/json')
      .send(jsonRpcError(-32700, `Parse error: ${error.message}`));
  }
  throw error;
}

function sendInternalError(res: ServerResponse): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res
    .writeHead(500, { 'content-type': 'application/json' })
    .end(jsonRpcError(-32603, 'Internal server error'));
}
