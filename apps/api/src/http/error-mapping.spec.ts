import { HttpException } from '@nestjs/common';
import { errorCodes } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AdminJobError } from '@app/jobs';
import { EmbeddingError, EmbeddingErrorCode } from '@app/embeddings';
import { MemoryError, MemoryErrorCode } from '@app/memories';
import { SecretStoreError, SecretStoreErrorCode } from '@app/secrets';
import { SyncError, SyncErrorCode } from '@app/sync';
import { TenancyError, TenancyErrorCode } from '@app/tenancy';
import { toErrorResponse } from './error-mapping';

describe('domain errors → HTTP, by kind', () => {
  it.each([
    [new MemoryError(MemoryErrorCode.NotFound, 'x'), 404, 'memory_not_found'],
    [new MemoryError(MemoryErrorCode.ContentTooLarge, 'x'), 422, 'content_too_large'],
    [new MemoryError(MemoryErrorCode.NoFieldsToUpdate, 'x'), 400, 'no_fields_to_update'],
    [new MemoryError(MemoryErrorCode.DuplicateContent, 'x'), 409, 'duplicate_content'],
    [new TenancyError(TenancyErrorCode.Forbidden, 'x'), 403, 'forbidden'],
    [new TenancyError(TenancyErrorCode.UserExists, 'x'), 409, 'user_exists'],
    [new EmbeddingError(EmbeddingErrorCode.ModelUnavailable, 'x'), 503, 'embedding_model_unavailable'],
    [AdminJobError.notFound('j'), 404, 'job_not_found'],
    [new SyncError(SyncErrorCode.InvalidCursor, 'x'), 400, 'invalid_cursor'],
    [new SyncError(SyncErrorCode.FullResyncRequired, 'x'), 410, 'full_resync_required'],
    [new SecretStoreError(SecretStoreErrorCode.Denied, 'x'), 503, 'secret_store_denied'],
  ])('%s answers %i with its code', (error, status, code) => {
    expect(toErrorResponse(error)).toMatchObject({ status, body: { detail: error.message, code } });
  });

  it('tells an unauthenticated caller how to authenticate', () => {
    const response = toErrorResponse(new TenancyError(TenancyErrorCode.Unauthenticated, 'no key'));
    expect(response).toEqual({
      status: 401,
      body: { detail: 'no key', code: 'unauthenticated' },
      headers: { 'WWW-Authenticate': 'Bearer realm="memory-service"' },
    });
  });

  it('says when to retry an unavailable backing service, and only then', () => {
    expect(toErrorResponse(SecretStoreError.unavailable('sealed')).headers).toEqual({ 'Retry-After': '5' });
    expect(
      toErrorResponse(new SecretStoreError(SecretStoreErrorCode.Unavailable, 'none')).headers,
    ).toBeUndefined();
  });

  it('keeps unknown errors opaque', () => {
    expect(toErrorResponse(new Error('secret detail'))).toEqual({
      status: 500,
      body: { detail: 'Internal server error', code: 'internal_error' },
    });
  });
});

describe('errors raised outside the controllers → {detail, code}', () => {
  it.each([
    [new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), 413, 'body_too_large'],
    [new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE('application/xml'), 415, 'unsupported_media_type'],
    [new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), 400, 'malformed_json'],
    // Raised by the router before any route (through the adapter's frameworkErrors).
    [new errorCodes.FST_ERR_BAD_URL('/api/memories/%ED%A0%80'), 400, 'invalid_url'],
    [new errorCodes.FST_ERR_MAX_PARAM_LENGTH('/api/memories/xxxx'), 414, 'invalid_url'],
    // Nest turns Fastify's errors into HttpExceptions without their code: the status names it.
    [new HttpException('Request body is too large', 413), 413, 'body_too_large'],
    [new HttpException('Unsupported Media Type', 415), 415, 'unsupported_media_type'],
    [new HttpException('Body is not valid JSON', 400), 400, 'bad_request'],
  ])('%s answers %i %s', (error, status, code) => {
    const response = toErrorResponse(error);
    expect(response).toMatchObject({ status, body: { code } });
    expect(response.body.detail).not.toBe('');
  });

  it('answers any 429 a plugin throws as rate_limited with a detail', () => {
    // @fastify/rate-limit throws what its errorResponseBuilder returns; other builders say less.
    expect(toErrorResponse({ statusCode: 429, code: 'rate_limited', detail: 'slow down' })).toEqual({
      status: 429,
      body: { detail: 'slow down', code: 'rate_limited' },
    });
    for (const thrown of [
      { statusCode: 429 },
      { statusCode: 429, code: 'FST_ERR_RATE_LIMITED', message: '' },
      Object.assign(new Error(''), { statusCode: 429 }),
      new HttpException('', 429),
    ]) {
      const response = toErrorResponse(thrown);
      expect(response.status).toBe(429);
      expect(response.body.code).toBe('rate_limited');
      expect(response.body.detail.length).toBeGreaterThan(0);
    }
  });
});
