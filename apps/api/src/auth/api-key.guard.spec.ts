import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller, Get, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  AuthenticateApiKeyUseCase,
  GrantPrivateAccessUseCase,
  MEMBER_SCOPES,
  TenancyError,
  TenancyErrorCode,
  type Principal,
} from '@app/tenancy';
import { HttpExceptionFilter } from '../http/http-exception.filter';
import { ApiKeyGuard } from './api-key.guard';
import { bearerToken } from './request-principal';
import { AuthCheckController } from './auth-check.controller';
import { CurrentPrincipal, Public, RequireScopes } from './auth.decorators';

const member: Principal = {
  tenantId: '11111111-1111-4111-8111-111111111111',
  tenantSlug: 'acme',
  userId: '22222222-2222-4222-8222-222222222222',
  username: 'alice',
  keyId: '33333333-3333-4333-8333-333333333333',
  scopes: MEMBER_SCOPES,
};

/** Stands in for the database-backed use case: one known key. */
class FakeAuthenticate {
  async execute(rawKey: string, requestId?: string): Promise<Principal> {
    if (rawKey !== 'alice-key') throw new TenancyError(TenancyErrorCode.Unauthenticated, 'Invalid API key');
    return { ...member, requestId };
  }
}

/** Stands in for the grant: records what it was asked and grants when the reason says "ok". */
class FakeGrant {
  readonly asked: Array<{ reason: string; method: string; path: string }> = [];
  async execute(principal: Principal, reason: string, request: { method: string; path: string }) {
    this.asked.push({ reason, ...request });
    if (!reason.startsWith('ok')) throw new TenancyError(TenancyErrorCode.Forbidden, 'not granted');
    return { ...principal, privateAccess: true };
  }
}

@Controller('probe')
class ProbeController {
  @Public()
  @Get('open')
  open() {
    return { open: true };
  }

  @Get('who')
  who(@CurrentPrincipal() principal: Principal) {
    return {
      username: principal.username,
      requestId: principal.requestId ?? null,
      privateAccess: principal.privateAccess ?? false,
    };
  }

  @RequireScopes('memories:read')
  @Get('read')
  read() {
    return { ok: true };
  }

  @RequireScopes('admin', 'secrets:read')
  @Get('admin')
  admin() {
    return { ok: true };
  }
}

@RequireScopes('admin')
@Controller('admin-only')
class AdminOnlyController {
  @Get()
  get() {
    return { ok: true };
  }
}

@Module({
  controllers: [ProbeController, AdminOnlyController, AuthCheckController],
  providers: [
    { provide: AuthenticateApiKeyUseCase, useClass: FakeAuthenticate },
    { provide: GrantPrivateAccessUseCase, useClass: FakeGrant },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_FILTER, useClass: HttpExceptionFilter },
  ],
})
class GuardTestModule {}

describe('ApiKeyGuard over HTTP', () => {
  let app: NestFastifyApplication;
  const call = async (path: string, authorization?: string, extra: Record<string, string> = {}) => {
    const res = await app.inject({
      method: 'GET',
      url: path,
      headers: { ...(authorization ? { authorization } : {}), ...extra },
    });
    return { status: res.statusCode, body: res.json() as Record<string, unknown>, headers: res.headers };
  };

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [GuardTestModule] }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
    app.setGlobalPrefix('api');
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => app?.close());

  it('answers GET /api/auth-check with the username of the key', async () => {
    expect(await call('/api/auth-check', 'Bearer alice-key')).toMatchObject({
      status: 200,
      body: { status: 'ok', user_id: 'alice' },
    });
  });

  it('refuses a missing, malformed or unknown key with 401, WWW-Authenticate and {detail, code}', async () => {
    for (const header of [undefined, 'Basic YWxpY2U6eA==', 'Bearer', 'Bearer wrong-key']) {
      const res = await call('/api/auth-check', header);
      expect(res.status, String(header)).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'unauthenticated' });
    }
    expect((await call('/api/auth-check')).body.detail).toContain('Authorization: Bearer');
  });

  it('lets @Public() routes through without a key', async () => {
    expect(await call('/api/probe/open')).toMatchObject({ status: 200, body: { open: true } });
  });

  it('sets the principal with the Fastify request id', async () => {
    const res = await call('/api/probe/who', 'bearer alice-key');
    expect(res.body).toEqual({ username: 'alice', requestId: expect.any(String), privateAccess: false });
    expect(res.body.requestId).not.toBe('');
  });

  it('enforces @RequireScopes on methods and classes with 403 naming the missing scopes', async () => {
    expect((await call('/api/probe/read', 'Bearer alice-key')).status).toBe(200);
    const both = await call('/api/probe/admin', 'Bearer alice-key');
    expect(both).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(both.body.detail).toContain('"admin"');
    expect(both.body.detail).not.toContain('secrets:read'); // members hold that one
    expect(await call('/api/admin-only', 'Bearer alice-key')).toMatchObject({ status: 403 });
    // Authentication comes first: no key is 401 even where a scope is required.
    expect((await call('/api/admin-only')).status).toBe(401);
  });
  it('asks for private access only when the reason header is sent, and refuses the request when denied', async () => {
    const grant = app.get(GrantPrivateAccessUseCase) as unknown as FakeGrant;
    const granted = await call('/api/probe/who?x=1', 'Bearer alice-key', {
      'x-private-access-reason': 'ok: incident 42',
    });
    expect(granted.body).toMatchObject({ username: 'alice', privateAccess: true });
    expect(grant.asked).toEqual([{ reason: 'ok: incident 42', method: 'GET', path: '/api/probe/who' }]);
    const denied = await call('/api/probe/who', 'Bearer alice-key', { 'x-private-access-reason': 'no' });
    expect(denied).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect((await call('/api/probe/who', 'Bearer alice-key')).body.privateAccess).toBe(false);
    expect(grant.asked).toHaveLength(2);
  });
});

describe('bearerToken', () => {
  it('takes the key after a case-insensitive Bearer scheme', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc  ')).toBe('abc');
    expect(() => bearerToken('Token abc')).toThrow(TenancyError);
    expect(() => bearerToken('')).toThrow(/Missing API key/);
  });
});
