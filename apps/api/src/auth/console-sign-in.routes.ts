import type { INestApplicationContext } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  BeginConsoleSignInUseCase,
  CompleteConsoleSignInUseCase,
  csrfTokenOf,
  EndConsoleSessionUseCase,
  TenancyError,
  TenancyErrorCode,
  AuthenticateConsoleSessionUseCase,
} from '@app/tenancy';
import { toErrorResponse } from '../http/error-mapping';
import { ConsoleSessionAuth } from './console-session-auth';

/**
 * The logged URL of a sign-in callback without its `code` and `state` (single-use and bound to the
 * browser's login cookie, but credentials all the same); any other URL goes to `next`.
 */
export function redactSignInCallback(next: (url: string) => string): (url: string) => string {
  return (url) =>
    url.startsWith('/auth/callback?')
      ? url.replace(/([?&](?:code|state)=)[^&]*/g, '$1[REDACTED]')
      : next(url);
}

/** Where the browser lands after signing in or failing to (the console's login view reads the code). */
const CONSOLE_HOME = '/ui/';

/** What the console's login view is told about a failed sign-in (a code, never the provider's words). */
function failureCode(error: unknown): 'not_member' | 'refused' | 'failed' {
  if (error instanceof TenancyError && error.code === TenancyErrorCode.Forbidden) return 'not_member';
  if (error instanceof TenancyError && error.code === TenancyErrorCode.Unauthenticated) return 'refused';
  return 'failed';
}

function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const response = toErrorResponse(error);
  return reply
    .code(response.status)
    .headers(response.headers ?? {})
    .header('cache-control', 'no-store')
    .send(response.body);
}

/**
 * The console's sign-in with the team's identity provider (docs/security.md, "Console sign-in"):
 *
 * - `GET /auth/providers`: the providers the console offers (public; empty without console clients);
 * - `GET /auth/login?issuer=…`: to the provider's authorization endpoint, with a login cookie;
 * - `GET /auth/callback`: the provider's redirect back; a session cookie, then the console;
 * - `GET /auth/session`: who the session cookie signs in, and its CSRF token (or `signed_in: false`);
 * - `POST /auth/logout`: ends the session on the server and clears the cookie.
 *
 * Transport only: each route calls one use case of @app/tenancy and sets or clears cookies.
 */
export function registerConsoleSignIn(fastify: FastifyInstance, app: INestApplicationContext): void {
  const begin = app.get(BeginConsoleSignInUseCase);
  const authenticate = app.get(AuthenticateConsoleSessionUseCase);
  const auth = app.get(ConsoleSessionAuth);
  const cookies = auth.cookies;
  const noStore = { 'cache-control': 'no-store' };

  fastify.get('/auth/providers', { config: { rateLimit: false } }, async (_request, reply) =>
    reply.headers(noStore).send({
      providers: begin.providers().map((p) => ({
        ...p,
        login_url: `/auth/login?${new URLSearchParams({ issuer: p.issuer }).toString()}`,
      })),
    }),
  );
  // Asked by the console on every load, signed in or not: "no session" is an answer, not an error.
  fastify.get('/auth/session', { config: { rateLimit: false } }, async (request, reply) => {
    const token = auth.enabled ? cookies.read(request, cookies.session) : undefined;
    if (token === undefined) return reply.headers(noStore).send({ signed_in: false });
    try {
      const principal = await authenticate.execute(token, String(request.id));
      return await reply.headers(noStore).send({
        signed_in: true,
        username: principal.username,
        scopes: principal.scopes,
        csrf_token: csrfTokenOf(token),
      });
    } catch (error) {
      if (error instanceof TenancyError && error.code === TenancyErrorCode.Unauthenticated)
        return reply
          .headers(noStore)
          .header('set-cookie', cookies.cleared(cookies.session))
          .send({ signed_in: false });
      return sendError(reply, error);
    }
  });
  if (!auth.enabled) return;

  const complete = app.get(CompleteConsoleSignInUseCase);
  const end = app.get(EndConsoleSessionUseCase);
  const query = (request: FastifyRequest, name: string): string | undefined => {
    const value = (request.query as Record<string, unknown>)[name];
    return typeof value === 'string' && value.length <= 2048 ? value : undefined;
  };

  fastify.get('/auth/login', async (request, reply) => {
    try {
      const start = await begin.execute(query(request, 'issuer') ?? '');
      return await reply
        .headers(noStore)
        .header('set-cookie', cookies.loginCookie(start.loginCookie))
        .redirect(start.authorizationUrl, 302);
    } catch (error) {
      if (error instanceof TenancyError && error.code === TenancyErrorCode.InvalidInput)
        return sendError(reply, error);
      request.log.warn({ err: error }, 'console sign-in could not start');
      return reply.headers(noStore).redirect(`${CONSOLE_HOME}?sign_in_error=unavailable`, 302);
    }
  });

  fastify.get('/auth/callback', async (request, reply) => {
    void reply.headers(noStore);
    try {
      const session = await complete.execute(
        {
          loginCookie: cookies.read(request, cookies.login),
          code: query(request, 'code'),
          state: query(request, 'state'),
          error: query(request, 'error'),
        },
        String(request.id),
      );
      return await reply
        .header('set-cookie', [
          cookies.cleared(cookies.login),
          cookies.sessionCookie(session.sessionToken, session.maxAgeSeconds),
        ])
        .redirect(CONSOLE_HOME, 302);
    } catch (error) {
      request.log.warn({ err: error }, 'console sign-in refused');
      return reply
        .header('set-cookie', cookies.cleared(cookies.login))
        .redirect(`${CONSOLE_HOME}?sign_in_error=${failureCode(error)}`, 302);
    }
  });

  fastify.post('/auth/logout', async (request, reply) => {
    const token = cookies.read(request, cookies.session);
    try {
      if (token !== undefined) {
        auth.checkCsrf(request, token);
        await end.execute(token);
      }
      return await reply
        .headers(noStore)
        .header('set-cookie', cookies.cleared(cookies.session))
        .code(204)
        .send();
    } catch (error) {
      return sendError(reply, error);
    }
  });
}
