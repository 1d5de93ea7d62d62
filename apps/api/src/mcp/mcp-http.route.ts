import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AuthenticateApiKeyUseCase, type Principal } from '@app/tenancy';
import { RequestValidationError } from '../http/request-validation.error';
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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const checkOrigin = originHook(this.config.mcp);
    fastify.route({
      method: 'POST',
      url: MCP_PATH,
      onRequest: [checkOrigin, authenticationHook(this.authenticate)],
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
    const principal = request.principal as Principal;
    if (await countBatchCalls(request, reply)) return;
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
      const raw = Object.assign(request.raw, { auth: toAuthInfo(principal) });
      // `null` rather than undefined for an empty body: the SDK must not read the consumed stream.
      await transport.handleRequest(raw, reply.raw, request.body ?? null);
    } catch (error) {
      this.logger.error({ err: error, reqId: request.id }, 'MCP request failed');
      sendInternalError(reply.raw);
    }
  }
}

/**
 * The rate limit counted this request once; a JSON-RPC batch of n calls counts n. Answers 429 (and
 * returns true) when the extra calls exceed the caller's budget.
 */
async function countBatchCalls(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const calls = Array.isArray(request.body) ? request.body.length : 1;
  // Decorated only when a rate limit is configured.
  if (calls <= 1 || !request.server.hasDecorator('createRateLimit')) return false;
  const check = request.server.createRateLimit();
  for (let i = 1; i < calls; i++) {
    const result = await check(request);
    if (!result.isAllowed && result.isExceeded) {
      await reply
        .code(429)
        .header('retry-after', String(result.ttlInSeconds))
        .type('application/json')
        .send(jsonRpcError(-32000, `Rate limit exceeded: this batch of ${calls} calls is over the budget`));
      return true;
    }
  }
  return false;
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
