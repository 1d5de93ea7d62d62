import type { IncomingMessage, ServerResponse } from 'node:http';
import { RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import type { Options } from 'pino-http';
import type { DestinationStream, Level } from 'pino';
import pinoPretty from 'pino-pretty';
import { type AppConfig } from '@app/config';
import { genReqId } from './request-id';
import { requestLogFields } from './request-log';

/**
 * Never written to logs. Request bodies are not logged at all (pino-http's request serializer
 * has no body), which is why memory `content` needs no redaction here.
 */
export const REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'password',
  'api_key',
  'key',
  'token',
  '*.password',
  '*.api_key',
  '*.key',
  '*.token',
];

export const REDACTED = '[REDACTED]';

/** Probes and scrapes arrive every few seconds; logging each would drown real traffic. */
const QUIET_PATHS = /^\/(health(\/(live|ready))?|metrics)(\?|$)/;

export interface LoggerParamsOptions {
  /** `name` on every line, e.g. "memory-api" or "memory-worker". */
  readonly name: string;
  /** Where lines go; stdout when absent. Tests pass a stream to read them back. */
  readonly destination?: DestinationStream;
  /** Rewrites the logged request URL (the app passes one that removes credentials from queries). */
  readonly redactUrl?: (url: string) => string;
}

/** nestjs-pino parameters: one JSON line per request with its id, nothing secret. */
export function buildLoggerParams(config: AppConfig, options: LoggerParamsOptions): Params {
  const pinoHttp: Options = {
    name: options.name,
    level: config.log.level,
    genReqId,
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    autoLogging: { ignore: isQuietRequest },
    customLogLevel: requestLogLevel,
    // The key id and, for /mcp, the methods and tools named (request-log.ts); read when the line is
    // written, as fields of the line itself: pino-http's customProps would make two more child loggers
    // per request (one at its start, when nothing is known yet, one at its end).
    customSuccessObject: (req, _res, line) => ({ ...requestLogFields(req), ...line }),
    customErrorObject: (req, _res, _error, line) => ({ ...requestLogFields(req), ...line }),
    ...(options.redactUrl ? { serializers: { req: urlRedactingSerializer(options.redactUrl) } } : {}),
  };
  const destination =
    options.destination ?? (config.log.format === 'pretty' ? prettyDestination() : undefined);
  return {
    pinoHttp: destination ? [pinoHttp, destination] : pinoHttp,
    // Nest 11 path syntax for "every route" (the library's default `*` triggers a warning).
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
  };
}

/** Fields the pretty format shows in the message or leaves out; anything else follows on the line. */
const PRETTY_IGNORED = 'pid,hostname,name,context,req,res,responseTime,reqId';

/**
 * Development format for a terminal: one short line per entry, `12:03:04.567 INFO [Context] message`,
 * requests as `GET /api/memories 200 4ms` (LOG_FORMAT=pretty). Written synchronously, so the
 * lines before an exit are never lost.
 */
export function prettyDestination(options: { colorize?: boolean; destination?: NodeJS.WritableStream } = {}) {
  return pinoPretty({
    colorize: options.colorize,
    destination: options.destination,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: PRETTY_IGNORED,
    messageFormat: prettyMessage,
  });
}

export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const context = typeof log.context === 'string' ? `[${log.context}] ` : '';
  const message = typeof log[messageKey] === 'string' ? (log[messageKey] as string) : '';
  const req = log.req as { method?: string; url?: string } | undefined;
  const res = log.res as { statusCode?: number } | undefined;
  if (!req?.method || !res?.statusCode) return `${context}${message}`;
  const outcome = message === 'request completed' ? '' : ` ${message}`;
  return `${context}${req.method} ${req.url ?? ''} ${res.statusCode} ${String(log.responseTime ?? '?')}ms${outcome}`;
}

/**
 * pino-http hands custom serializers the already-serialized request. Its URL is rewritten; the
 * parsed `query` object some adapters add is logged as the rewritten URL's query instead.
 */
function urlRedactingSerializer(redactUrl: (url: string) => string) {
  return (req: { url?: unknown; query?: unknown }) => {
    if (typeof req.url !== 'string') return req;
    const url = redactUrl(req.url);
    const query = Object.fromEntries(new URLSearchParams(url.split('?')[1] ?? ''));
    return Object.assign(req, { url, query });
  };
}

/** middie rewrites `req.url` while a path-scoped middleware runs; `originalUrl` keeps the real one. */
function isQuietRequest(req: IncomingMessage & { originalUrl?: string }): boolean {
  return QUIET_PATHS.test(req.originalUrl ?? req.url ?? '');
}

export function requestLogLevel(_req: IncomingMessage, res: ServerResponse, error?: Error): Level {
  if (error || res.statusCode >= 500) return 'error';
  if (res.statusCode >= 400) return 'warn';
  return 'info';
}
