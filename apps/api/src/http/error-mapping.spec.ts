import { HttpException } from '@nestjs/common';
import { errorCodes } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AdminJobError } from '@app/jobs';
import { EmbeddingError, EmbeddingErrorCode } from '@app/embeddings';
import { MemoryError, MemoryErrorCode } from '@app/memories';
import { SecretStoreError, SecretStoreErrorCode } from '@app/secrets';
import { SyncError, SyncErrorCode } from '@app/sync';
import { TenancyError, TenancyErrorCode } from '@app/tenancy';
import { QueryFailedError } from 'typeorm';
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

describe('database refusals → 409 or 422, never 500', () => {
  /** What node-postgres raises through TypeORM, with the detail Postgres writes (key values in it). */
  const refused = (code: string, constraint?: string) =>
    new QueryFailedError('UPDATE memories SET content = $1', ['bob’s text'], {
      name: 'error',
      message: `refused (${code})`,
      code,
      constraint,
      table: 'memories',
      detail: 'Key (owner_id, content_hash)=(0b7e…, \\x9f2c…) already exists.',
    } as unknown as Error);

  it.each([
    ['23505', 'unique violation'],
    ['23P01', 'exclusion violation'],
    ['23503', 'foreign key violation'],
    ['23001', 'restrict violation'],
  ])('%s (%s) is a write conflict: 409 write_conflict', (sqlstate) => {
    const response = toErrorResponse(refused(sqlstate, 'memories_owner_hash_live'));
    expect(response).toMatchObject({ status: 409, body: { code: 'write_conflict' } });
    expect(response.refusedBy).toEqual({
      sqlstate,
      constraint: 'memories_owner_hash_live',
      table: 'memories',
    });
  });

  it.each([
    ['23514', 'check violation'],
    ['23502', 'not-null violation'],
    ['23000', 'integrity constraint violation'],
    ['22008', 'datetime field overflow'],
    ['22007', 'invalid datetime format'],
    ['22P02', 'invalid text representation'],
    ['22001', 'string data right truncation'],
    ['22003', 'numeric value out of range'],
    ['22021', 'character not in repertoire'],
  ])('%s (%s) is a value that cannot be stored: 422 invalid_value', (sqlstate) => {
    const response = toErrorResponse(refused(sqlstate));
    expect(response).toMatchObject({ status: 422, body: { code: 'invalid_value' } });
    expect(response.refusedBy).toEqual({ sqlstate, table: 'memories' });
  });

  it('never passes on what Postgres or the statement said (key values, parameters, constraint names)', () => {
    for (const code of ['23505', '23514']) {
      const { body, headers } = toErrorResponse(refused(code, 'memories_owner_hash_live'));
      expect(JSON.stringify(body)).not.toMatch(
        /Key \(|owner_id|bob’s text|memories_owner_hash_live|refused \(/,
      );
      expect(headers).toBeUndefined();
    }
  });

  it('maps only database errors of those classes', () => {
    expect(toErrorResponse(Object.assign(new Error('x'), { code: '23505' })).status).toBe(500);
    expect(toErrorResponse(refused('42501')).status).toBe(500);
    expect(toErrorResponse(refused('XX000')).status).toBe(500);
  });
});
