import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { PARAMS_PROVIDER_TOKEN, PinoLogger, type Params } from 'nestjs-pino';
import { pinoHttp, type HttpLogger, type Options } from 'pino-http';

const FIELDS = Symbol('requestLogFields');

/** What an MCP request did, for its log line: the JSON-RPC methods and tools it named, never arguments. */
export interface McpRequestSummary {
  readonly messages: number;
  readonly methods: readonly string[];
  readonly tools: readonly string[];
}

/** Fields a request's log line carries beside the request and response (set while it is served). */
export interface RequestLogFields {
  /** The API key (its id) the request authenticated with. */
  keyId?: string;
  mcp?: McpRequestSummary;
}

type Carrier = object & { [FIELDS]?: RequestLogFields };

/** Adds fields to the log line of the request `raw` (the Node request), written when it finishes. */
export function addRequestLogFields(raw: object, fields: RequestLogFields): void {
  const carrier = raw as Carrier;
  carrier[FIELDS] = { ...carrier[FIELDS], ...fields };
}

/** pino-http's `customProps`: the fields added to the request so far (empty before anything is known). */
export function requestLogFields(raw: object): RequestLogFields {
  return { ...(raw as Carrier)[FIELDS] };
}

/**
 * The request log for routes mounted on Fastify directly, outside Nest's middleware (`/mcp`): the
 * same pino-http options and logger as every other request, so the line has the same fields
 * (request id, key id, status, response time) and the same redaction.
 */
@Injectable()
export class RequestLog {
  private middleware?: HttpLogger;

  constructor(@Inject(PARAMS_PROVIDER_TOKEN) private readonly params: Params) {}

  /** Starts the log of one request; its line is written when the response finishes or fails. */
  start(req: IncomingMessage, res: ServerResponse): void {
    this.middleware ??= this.create();
    this.middleware(req, res);
  }

  private create(): HttpLogger {
    const configured = this.params.pinoHttp;
    const first = Array.isArray(configured) ? configured[0] : configured;
    // buildLoggerParams always gives options (with a destination beside them, when one is set).
    const options = (first && !('write' in first) ? first : {}) as Options;
    // The root logger nestjs-pino built for the other requests (destination, redaction, name).
    return pinoHttp({ ...options, logger: PinoLogger.root });
  }
}
