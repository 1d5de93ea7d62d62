import { Logger } from '@nestjs/common';
import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpError, type CallToolResult, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { missingScopes, type Principal, type Scope } from '@app/tenancy';
import { toErrorResponse } from '../http/error-mapping';
import { budgetForScopes, type RateLimitBudget } from '../rate-limit/rate-limit-budgets';
import { RateLimitedError } from '../rate-limit/rate-limited.error';
import { principalOf, rateLimitChargeOf } from './mcp-auth';

/** What a tool hands back: readable text for the model, the same data as `structuredContent`. */
export interface ToolOutput<T> {
  readonly text: string;
  readonly data: T;
}

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  /** snake_case verb_noun. */
  readonly name: string;
  readonly title: string;
  /** When to use the tool and what it returns; models choose tools by this text. */
  readonly description: string;
  /** The key must hold it; checked per call, so a read-only key still lists every tool. */
  readonly scope: Scope;
  /** The rate-limit budget a call counts against when the scope does not say it (session events). */
  readonly rateLimit?: RateLimitBudget;
  readonly annotations: Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>;
  readonly input: I;
  readonly output: O;
  run(principal: Principal, args: z.output<I>): Promise<ToolOutput<z.output<O>>>;
}

export interface McpToolDefinition {
  readonly name: string;
  register(server: McpServer): void;
}

/** Annotations of a tool that only reads. */
export const READ_ONLY = { readOnlyHint: true } as const;

const logger = new Logger('McpTool');

/** A domain error as a tool result the model can act on: the REST `detail`/`code` plus what to do next. */
function errorResult(
  error: { detail: string; code: string; status: number },
  requestId?: string,
): CallToolResult {
  const advice = recoveryAdvice(error.code, error.status, error.detail);
  const reference = error.status >= 500 && requestId ? ` (request id ${requestId})` : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.detail} [${error.code}]${reference}\n${advice}` }],
  };
}

function recoveryAdvice(code: string, status: number, detail: string): string {
  switch (code) {
    case 'memory_not_found':
      return 'Check the id with memory_list or memory_recall; other users’ private memories are never visible.';
    case 'content_too_large':
      return 'Shorten the content or split it into several memories.';
    case 'no_fields_to_update':
      return 'Pass at least one of content, category, tags, expanded_keywords, importance or visibility.';
    case 'duplicate_content':
      return 'Another memory already holds this content: keep that one, or delete it first.';
    case 'write_conflict':
      return 'Nothing was changed: another change got there at the same time. Read the memory again (memory_get) and retry.';
    case 'link_exists':
      return 'The link is already there; nothing to do.';
    case 'link_not_found':
      return 'Check the link with memory_get (links_out lists the links a memory starts).';
    case 'supersedes_cycle':
      return 'The newer memory must supersede the older one, not the other way round; check the ids with memory_get.';
    case 'session_not_found':
      return 'Use the id session_start answered (start a session first); other users’ sessions are never visible.';
    case 'event_too_large':
    case 'event_batch_too_large':
      return 'Shorten the text or split it into several notes.';
    case 'secret_store_unavailable':
      return 'Nothing was changed. Retry later; if the detail says no secret store is configured, store the memory without the credential instead.';
    case 'rate_limited':
      return 'Nothing was done. Wait that long before calling again; calling sooner fails the same way.';
    case 'quota_exceeded':
    case 'storage_quota_exceeded':
      return 'Nothing was stored: the team is at its quota. Delete memories that are no longer needed (memory_delete) or ask an administrator; GET /api/usage shows the quotas.';
    case 'forbidden':
      return status === 403 && /teammate/.test(detail)
        ? 'Only the owner can change it: store your own memory (or ask the owner) instead.'
        : 'Ask an administrator for a key with that scope; retrying with this key will fail the same way.';
  }
  if (status === 503) {
    return 'A backing service (such as the secret store) is unavailable; nothing was changed. Retry later.';
  }
  if (status >= 500) return 'The server failed; nothing is known to have changed. Retry later.';
  if (status === 409) return 'The memory is in another state than expected; read it again before retrying.';
  return 'Correct the arguments and call again; the same call will fail the same way.';
}

/**
 * The one wrapper around every tool: principal from the transport's authInfo, scope check, and
 * domain errors turned into `isError` results. Protocol errors (McpError) stay JSON-RPC errors.
 */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<I, O>,
): McpToolDefinition {
  const call = async (args: z.output<I>, extra: { authInfo?: AuthInfo }): Promise<CallToolResult> => {
    const principal = principalOf(extra);
    const [missing] = missingScopes(principal, [spec.scope]);
    if (missing) {
      return errorResult({
        detail: `This API key lacks the "${missing}" scope that ${spec.name} needs`,
        code: 'forbidden',
        status: 403,
      });
    }
    // The same counters as REST: a tool that writes against writes, one that reads against reads.
    // Over budget is a tool error (isError), which the model reads and can wait on.
    const budget = spec.rateLimit ?? budgetForScopes([spec.scope]);
    const verdict = await rateLimitChargeOf(extra)?.(budget);
    if (verdict?.limited) {
      const { message, code } = new RateLimitedError(budget, verdict.max, verdict.retryAfterSeconds);
      return errorResult({ detail: message, code, status: 429 });
    }
    try {
      const { text, data } = await spec.run(principal, args);
      return { content: [{ type: 'text', text }], structuredContent: data };
    } catch (error) {
      if (error instanceof McpError) throw error;
      const { status, body, refusedBy } = toErrorResponse(error);
      if (status >= 500)
        logger.error({ err: error, reqId: principal.requestId, tool: spec.name }, 'tool failed');
      else if (refusedBy)
        logger.warn({ reqId: principal.requestId, tool: spec.name, refusedBy }, 'database refused the write');
      return errorResult({ ...body, status }, principal.requestId);
    }
  };
  return {
    name: spec.name,
    register(server) {
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: spec.description,
          inputSchema: spec.input,
          outputSchema: spec.output,
          annotations: { ...spec.annotations, openWorldHint: false },
        },
        // The SDK's callback type is conditional on the schema type, which TS cannot narrow for a generic I.
        call as ToolCallback<I>,
      );
    },
  };
}
