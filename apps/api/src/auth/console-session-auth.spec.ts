import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '@app/config';
import {
  csrfTokenOf,
  MEMBER_SCOPES,
  TenancyError,
  type AuthenticateConsoleSessionUseCase,
  type Principal,
} from '@app/tenancy';
import { ConsoleSessionAuth } from './console-session-auth';
import { redactSignInCallback } from './console-sign-in.routes';

const TOKEN = 'a'.repeat(43);
const member: Principal = {
  tenantId: '11111111-1111-4111-8111-111111111111',
  tenantSlug: 'acme',
  userId: '22222222-2222-4222-8222-222222222222',
  username: 'carol@example.com',
  keyId: '33333333-3333-4333-8333-333333333333',
  scopes: MEMBER_SCOPES,
};

function auth(resource = 'https://memory.example.com', console = true): ConsoleSessionAuth {
  const config = {
    oauth: {
      resource,
      issuers: [
        {
          issuer: 'https://idp.example.com',
          tenant: 'acme',
          jitDomains: [],
          jitRole: 'member',
          ...(console ? { console: { clientId: 'c', label: 'IdP' } } : {}),
        },
      ],
      consoleSessions: { idleSeconds: 3600, maxSeconds: 43_200 },
    },
  } as unknown as AppConfig;
  const sessions = {
    execute: async (token: string) => {
      if (token !== TOKEN) throw new Error('unknown session');
      return member;
    },
  } as unknown as AuthenticateConsoleSessionUseCase;
  return new ConsoleSessionAuth(config, sessions);
}

const request = (method: string, headers: Record<string, string>, url = '/api/memories') =>
  ({ method, url, id: 'r1', headers }) as unknown as FastifyRequest;

describe('ConsoleSessionAuth', () => {
  it('names Secure __Host- cookies over https, plain ones on loopback http', () => {
    expect(auth().cookies.session).toBe('__Host-memsvc-session');
    expect(auth().cookies.sessionCookie(TOKEN, 60)).toBe(
      `__Host-memsvc-session=${TOKEN}; Max-Age=60; Path=/; HttpOnly; SameSite=Lax; Secure`,
    );
    expect(auth('http://127.0.0.1:8080').cookies.sessionCookie(TOKEN, 60)).toBe(
      `memsvc-session=${TOKEN}; Max-Age=60; Path=/; HttpOnly; SameSite=Lax`,
    );
  });

  it('uses the cookie only on /api, without a bearer, with a console client configured', () => {
    const cookie = { cookie: `other=1; __Host-memsvc-session=${TOKEN}` };
    expect(auth().sessionToken(request('GET', cookie))).toBe(TOKEN);
    expect(auth().sessionToken(request('GET', { ...cookie, authorization: 'Bearer k' }))).toBeUndefined();
    expect(auth().sessionToken(request('POST', cookie, '/mcp'))).toBeUndefined();
    expect(auth(undefined, false).sessionToken(request('GET', cookie))).toBeUndefined();
  });

  it('lets reads through, and a change only with the CSRF token from this origin', async () => {
    const a = auth();
    await expect(a.principal(request('GET', {}), TOKEN)).resolves.toEqual({ ...member });
    const csrf = { 'x-csrf-token': csrfTokenOf(TOKEN) };
    await expect(a.principal(request('POST', csrf), TOKEN)).resolves.toEqual({ ...member });
    await expect(
      a.principal(request('DELETE', { ...csrf, origin: 'https://memory.example.com' }), TOKEN),
    ).resolves.toEqual({ ...member });
    for (const headers of <Record<string, string>[]>[
      {},
      { 'x-csrf-token': csrfTokenOf('b'.repeat(43)) },
      { ...csrf, origin: 'https://evil.example' },
    ]) {
      const refused = await a.principal(request('PUT', headers), TOKEN).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TenancyError);
      expect((refused as TenancyError).code).toBe('csrf_rejected');
    }
  });
});

describe('redactSignInCallback', () => {
  it("hides a callback's code and state, and hands any other URL on", () => {
    const redact = redactSignInCallback((url) => `next:${url}`);
    expect(redact('/auth/callback?code=abc&state=def&iss=https%3A%2F%2Fidp')).toBe(
      '/auth/callback?code=[REDACTED]&state=[REDACTED]&iss=https%3A%2F%2Fidp',
    );
    expect(redact('/api/memories?code=1')).toBe('next:/api/memories?code=1');
  });
});
