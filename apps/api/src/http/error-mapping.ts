import { HttpException } from '@nestjs/common';
import { DomainError, type ErrorKind } from '@app/kernel';
import { RequestValidationError } from './request-validation.error';
import { isConnectionLoss } from '@app/persistence';

export interface ErrorResponse {
  readonly status: number;
  readonly body: { detail: string; code: string };
  readonly headers?: Record<string, string>;
  /** A schema rule Postgres refused the statement on (logged as a warning; never row values). */
  readonly refusedBy?: DatabaseRefusal;
}

/** Names only: Postgres' `detail` quotes key values, which may be another user's. */
export interface DatabaseRefusal {
  readonly sqlstate: string;
  readonly constraint?: string;
  readonly table?: string;
}

/**
 * The one place where domain errors become HTTP statuses: a table on the error's kind (MCP maps
 * through the same function into `isError` results).
 */
export const STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  invalid: 422,
  too_many_requests: 429,
  unavailable: 503,
};

function domainErrorResponse(error: DomainError): ErrorResponse {
  const headers: Record<string, string> = {};
  if (error.kind === 'unauthenticated') headers['WWW-Authenticate'] = 'Bearer realm="memory-service"';
  // Sealed, slow or unreachable: say when to try again. (No store configured: retrying won't help.)
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  return {
    status: STATUS_BY_KIND[error.kind],
    body: { detail: error.message, code: error.publicCode },
    headers: Object.keys(headers).length > 0 ? headers : undefined,
  };
}

/**
 * Postgres gave up on the statement (statement timeout, lock timeout) or chose it as a deadlock or
 * serialization victim after the write's own retry: the request may succeed if sent again, so it
 * answers 503 with Retry-After, never 500. Nothing was committed.
 */
const TRANSIENT_DATABASE_ERRORS: Readonly<
  Record<string, { code: string; detail: string; retryAfter: number }>
> = {
  '57014': {
    code: 'statement_timeout',
    detail: 'The database did not answer in time; nothing was changed. Try again, or narrow the request.',
    retryAfter: 5,
  },
  '55P03': { code: 'database_busy', detail: 'The data is locked by other work; try again.', retryAfter: 1 },
  '40P01': { code: 'database_busy', detail: 'A concurrent change conflicted; try again.', retryAfter: 1 },
  '40001': { code: 'database_busy', detail: 'A concurrent change conflicted; try again.', retryAfter: 1 },
};

function transientDatabaseError(error: unknown): ErrorResponse | undefined {
  if (typeof error !== 'object' || error === null || (error as Error).name !== 'QueryFailedError')
    return undefined;
  const code = (error as { code?: unknown }).code;
  const known = typeof code === 'string' ? TRANSIENT_DATABASE_ERRORS[code] : undefined;
  if (!known) return undefined;
  return {
    status: 503,
    body: { detail: known.detail, code: known.code },
    headers: { 'Retry-After': String(known.retryAfter) },
  };
}

/**
 * A rule of the schema refused the statement: a unique, exclusion or foreign key constraint (class
 * 23: another request wrote the same key or removed the row this one refers to between the use
 * case's check and its statement), a check or not-null constraint, or a value Postgres cannot hold
 * (class 22, e.g. a date before year 1) that the contract let through. The request's timing or
 * input, never a server failure: 409 (read again and retry) or 422 (retrying fails the same way).
 * Nothing was committed. The answer is a fixed sentence: Postgres' detail names key values.
 */
const WRITE_CONFLICT = {
  status: 409,
  body: {
    code: 'write_conflict',
    detail:
      'This write conflicts with another change made at the same time (the same content or key was written, or something it refers to was removed); nothing was changed. Read the data again and retry.',
  },
} as const;
const INVALID_VALUE = {
  status: 422,
  body: {
    code: 'invalid_value',
    detail:
      'A value in this request is outside what can be stored (such as a date before year 1); nothing was changed. Correct it before sending the request again.',
  },
} as const;
/** 23505 unique, 23P01 exclusion, 23503 foreign key, 23001 restrict: the state changed under the write. */
const CONFLICT_SQLSTATES = new Set(['23505', '23P01', '23503', '23001']);

function databaseRefusal(error: unknown): ErrorResponse | undefined {
  if (typeof error !== 'object' || error === null || (error as Error).name !== 'QueryFailedError')
    return undefined;
  const { code, constraint, table } = error as { code?: unknown; constraint?: unknown; table?: unknown };
  // Every other class 23 (23514 check, 23502 not null, 23000) and class 22 state is the value's.
  if (typeof code !== 'string' || !/^2[23][0-9A-Z]{3}$/.test(code)) return undefined;
  const refusedBy: DatabaseRefusal = {
    sqlstate: code,
    ...(typeof constraint === 'string' ? { constraint } : {}),
    ...(typeof table === 'string' ? { table } : {}),
  };
  const answer = CONFLICT_SQLSTATES.has(code) ? WRITE_CONFLICT : INVALID_VALUE;
  return { status: answer.status, body: { ...answer.body }, refusedBy };
}

/**
 * Postgres restarting, down or unreachable: the request may succeed once it is back, so 503 with
 * Retry-After, never 500. Unlike a timeout, a connection lost while a write committed leaves its
 * outcome unknown, so the detail does not promise that nothing changed.
 */
function databaseUnavailable(error: unknown): ErrorResponse | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if (!isConnectionLoss(error)) return undefined;
  return {
    status: 503,
    body: {
      code: 'database_unavailable',
      detail:
        'The database is unavailable (restarting or unreachable); try again. A write cut off by this may or may not have been saved: retry it with the same Idempotency-Key.',
    },
    headers: { 'Retry-After': '2' },
  };
}

/**
 * An error Fastify or one of its plugins raised while reading a request (body parsing, size and
 * media type, rate limiting): a numeric `statusCode`, and usually a `code` (`FST_ERR_…`) and a
 * message; a plugin's own error object may carry `detail` instead.
 */
interface FastifyLikeError {
  statusCode: number;
  code?: unknown;
  message?: unknown;
  detail?: unknown;
}

function isFastifyError(error: unknown): error is FastifyLikeError {
  return (
    typeof error === 'object' && error !== null && typeof (error as FastifyLikeError).statusCode === 'number'
  );
}

/** Fastify's own codes, as docs/api.md "Limits and errors" names them. */
const FASTIFY_CODES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_content_length',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'empty_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_BAD_URL: 'invalid_url',
  FST_ERR_MAX_PARAM_LENGTH: 'invalid_url',
};

/** Fastify's messages for these quote the whole path back; a fixed sentence says enough. */
const FASTIFY_DETAILS: Record<string, string> = {
  FST_ERR_BAD_URL: 'The URL is not valid: a path segment has malformed percent-encoding',
  FST_ERR_MAX_PARAM_LENGTH: 'The URL is not valid: a path parameter is too long',
};

/** The code of a 4xx that carries none of its own (an HttpException, a plugin's bare status). */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

const DETAIL_BY_STATUS: Record<number, string> = {
  413: 'The request body is too large',
  415: 'Unsupported media type',
  429: 'Rate limit exceeded; retry after the time in Retry-After',
};

const codeForStatus = (status: number) => CODE_BY_STATUS[status] ?? `http_${status}`;
const defaultDetail = (status: number) => DETAIL_BY_STATUS[status] ?? `HTTP ${status}`;

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/**
 * A client error raised outside the controllers: always `{detail, code}`. A rate limit is
 * `rate_limited` whatever the plugin calls it (the plugin sets Retry-After itself).
 */
function fastifyErrorResponse(error: FastifyLikeError): ErrorResponse {
  const status = error.statusCode;
  const own = nonEmpty(error.code);
  const code =
    status === 429
      ? 'rate_limited'
      : ((own && FASTIFY_CODES[own]) ??
        (own && !own.startsWith('FST_') ? own.toLowerCase() : codeForStatus(status)));
  const detail =
    (own && FASTIFY_DETAILS[own]) ??
    nonEmpty(error.detail) ??
    nonEmpty(error.message) ??
    defaultDetail(status);
  return { status, body: { detail, code } };
}

/** Maps anything thrown while serving a request to `{detail, code}`; unknown errors become a plain 500. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof DomainError) return domainErrorResponse(error);
  if (error instanceof RequestValidationError) {
    return { status: error.status, body: { detail: error.message, code: error.code } };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response
        ? (response as { message: unknown }).message
        : response;
    const detail = nonEmpty(message) ?? nonEmpty(error.message) ?? defaultDetail(status);
    return { status, body: { detail, code: codeForStatus(status) } };
  }
  if (isFastifyError(error) && error.statusCode >= 400 && error.statusCode < 500) {
    return fastifyErrorResponse(error);
  }
  const transient = transientDatabaseError(error) ?? databaseUnavailable(error) ?? databaseRefusal(error);
  if (transient) return transient;
  if (error instanceof SyntaxError) {
    return { status: 400, body: { detail: `Malformed JSON: ${error.message}`, code: 'malformed_json' } };
  }
  return { status: 500, body: { detail: 'Internal server error', code: 'internal_error' } };
}
