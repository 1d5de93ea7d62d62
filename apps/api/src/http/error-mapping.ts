import { HttpException } from '@nestjs/common';
import { AdminJobError, AdminJobErrorCode } from '@app/jobs';
import { EmbeddingError, EmbeddingErrorCode } from '@app/embeddings';
import { MemoryError, MemoryErrorCode } from '@app/memories';
import { SyncError, SyncErrorCode } from '@app/sync';
import { SecretStoreError, SecretStoreErrorCode } from '@app/secrets';
import { TenancyError, TenancyErrorCode } from '@app/tenancy';
import { RequestValidationError } from './request-validation.error';

export interface ErrorResponse {
  readonly status: number;
  readonly body: { detail: string; code: string };
  readonly headers?: Record<string, string>;
}

/** The one place where domain error codes become HTTP statuses (MCP maps the same codes later). */
export function memoryErrorStatus(code: MemoryErrorCode): number {
  switch (code) {
    case MemoryErrorCode.NotFound:
      return 404;
    case MemoryErrorCode.InvalidInput:
    case MemoryErrorCode.ContentTooLarge:
    case MemoryErrorCode.IdempotencyKeyReused:
      return 422;
    case MemoryErrorCode.NoFieldsToUpdate:
    case MemoryErrorCode.BatchTooLarge:
      return 400;
    case MemoryErrorCode.NotDeleted:
    case MemoryErrorCode.DuplicateContent:
      return 409;
  }
}

export function tenancyErrorStatus(code: TenancyErrorCode): number {
  switch (code) {
    case TenancyErrorCode.Unauthenticated:
      return 401;
    case TenancyErrorCode.Forbidden:
      return 403;
    case TenancyErrorCode.UserNotFound:
    case TenancyErrorCode.KeyNotFound:
    case TenancyErrorCode.TenantNotFound:
      return 404;
    case TenancyErrorCode.UserExists:
      return 409;
    case TenancyErrorCode.InvalidInput:
      return 422;
  }
}

export function embeddingErrorStatus(code: EmbeddingErrorCode): number {
  switch (code) {
    case EmbeddingErrorCode.InvalidModel:
      return 422;
    case EmbeddingErrorCode.ModelUnavailable:
      return 503;
    case EmbeddingErrorCode.DimensionsMismatch:
    case EmbeddingErrorCode.ReindexInProgress:
      return 409;
  }
}

export function adminJobErrorStatus(code: AdminJobErrorCode): number {
  switch (code) {
    case AdminJobErrorCode.NotFound:
      return 404;
  }
}

export function syncErrorStatus(code: SyncErrorCode): number {
  switch (code) {
    case SyncErrorCode.InvalidCursor:
    case SyncErrorCode.InvalidSince:
      return 400;
    case SyncErrorCode.EpochChanged:
      return 409;
    case SyncErrorCode.FullResyncRequired:
      return 410;
  }
}

export function secretStoreErrorStatus(code: SecretStoreErrorCode): number {
  switch (code) {
    case SecretStoreErrorCode.NotFound:
      return 404;
    case SecretStoreErrorCode.Conflict:
      return 409;
    // Credentials refused or a ciphertext that does not decrypt: the server's problem, not the
    // caller's; nothing was stored in clear.
    case SecretStoreErrorCode.Denied:
    case SecretStoreErrorCode.Unavailable:
      return 503;
  }
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
  if (error instanceof MemoryError) {
    return { status: memoryErrorStatus(error.code), body: { detail: error.message, code: error.code } };
  }
  if (error instanceof EmbeddingError) {
    return { status: embeddingErrorStatus(error.code), body: { detail: error.message, code: error.code } };
  }
  if (error instanceof AdminJobError) {
    return { status: adminJobErrorStatus(error.code), body: { detail: error.message, code: error.code } };
  }
  if (error instanceof SyncError) {
    return { status: syncErrorStatus(error.code), body: { detail: error.message, code: error.code } };
  }
  if (error instanceof SecretStoreError) {
    const status = secretStoreErrorStatus(error.code);
    // Sealed, slow or unreachable: say when to try again. (No store configured: retrying won't help.)
    const headers =
      error.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(error.retryAfterSeconds) };
    const code = `secret_store_${error.code}`;
    return { status, body: { detail: error.message, code }, headers };
  }
  if (error instanceof TenancyError) {
    const status = tenancyErrorStatus(error.code);
    const headers: Record<string, string> | undefined =
      status === 401 ? { 'WWW-Authenticate': 'Bearer realm="memory-service"' } : undefined;
    return { status, body: { detail: error.message, code: error.code }, headers };
  }
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
  if (error instanceof SyntaxError) {
    return { status: 400, body: { detail: `Malformed JSON: ${error.message}`, code: 'malformed_json' } };
  }
  return { status: 500, body: { detail: 'Internal server error', code: 'internal_error' } };
}
