import { HttpException } from '@nestjs/common';
import { DomainError, type ErrorKind } from '@app/kernel';
import { RequestValidationError } from './request-validation.error';

export interface ErrorResponse {
  readonly status: number;
  readonly body: { detail: string; code: string };
  readonly headers?: Record<string, string>;
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

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
}

function isFastifyError(error: unknown): error is FastifyLikeError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as FastifyLikeError).statusCode === 'number' &&
    typeof (error as FastifyLikeError).code === 'string'
  );
}

const FASTIFY_CODES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_content_length',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'empty_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
};

/** Maps anything thrown while serving a request to `{detail, code}`; unknown errors become a plain 500. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof DomainError) return domainErrorResponse(error);
  if (error instanceof RequestValidationError) {
    return { status: error.status, body: { detail: error.message, code: error.code } };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const detail =
      typeof response === 'string'
        ? response
        : typeof response === 'object' && response !== null && 'message' in response
          ? String((response as { message: unknown }).message)
          : error.message;
    const code = status === 404 ? 'not_found' : status === 429 ? 'rate_limited' : `http_${status}`;
    return { status, body: { detail, code } };
  }
  if (isFastifyError(error)) {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const fastifyCode = error.code ?? '';
      let code = FASTIFY_CODES[fastifyCode] ?? fastifyCode.toLowerCase().replace(/^fst_err_/, '');
      if (/prototype|constructor/i.test(error.message)) code = 'forbidden_property';
      return { status, body: { detail: error.message, code } };
    }
  }
  const transient = transientDatabaseError(error);
  if (transient) return transient;
  if (error instanceof SyntaxError) {
    return { status: 400, body: { detail: `Malformed JSON: ${error.message}`, code: 'malformed_json' } };
  }
  return { status: 500, body: { detail: 'Internal server error', code: 'internal_error' } };
}
