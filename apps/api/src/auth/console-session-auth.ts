import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  AuthenticateConsoleSessionUseCase,
  csrfTokenOf,
  sameSecret,
  TenancyError,
  TenancyErrorCode,
  type Principal,
} from '@app/tenancy';
import { ConsoleCookies } from './console-cookies';

/** The header a cookie-authenticated change carries (the value `GET /auth/session` gives). */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Authentication by the console's session cookie, for `/api` requests that send no Authorization
 * header (a bearer always wins, exactly as before). A change (any method but GET/HEAD/OPTIONS) also
 * needs the session's CSRF token in `X-CSRF-Token` and, when the browser names one, an `Origin` of
 * this service: otherwise 403 `csrf_rejected`, before the session is even looked up.
 */
@Injectable()
export class ConsoleSessionAuth {
  readonly cookies: ConsoleCookies;
  private readonly origin: string | null;
  readonly enabled: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(AuthenticateConsoleSessionUseCase) private readonly sessions: AuthenticateConsoleSessionUseCase,
  ) {
    this.cookies = new ConsoleCookies(config.oauth.resource);
    this.origin = config.oauth.resource === null ? null : new URL(config.oauth.resource).origin;
    this.enabled = config.oauth.issuers.some((i) => i.console);
  }

  /** The request's session token when it authenticates by cookie (no Authorization, an /api path). */
  sessionToken(request: FastifyRequest): string | undefined {
    if (!this.enabled || request.headers.authorization !== undefined) return undefined;
    if (!request.url.startsWith('/api/')) return undefined;
    return this.cookies.read(request, this.cookies.session);
  }

  async principal(request: FastifyRequest, token: string): Promise<Principal> {
    this.checkCsrf(request, token);
    return this.sessions.execute(token, String(request.id));
  }

  /** 403 for a change that lacks the session's CSRF token or comes from another origin. */
  checkCsrf(request: FastifyRequest, token: string): void {
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== this.origin && !sameHost(origin, request.headers.host))
      throw rejected(`A change from another origin (${origin.slice(0, 100)}) is refused`);
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !sameSecret(sent, csrfTokenOf(token)))
      throw rejected(
        'A change made with the console session cookie needs the session\'s CSRF token in "X-CSRF-Token" (GET /auth/session)',
      );
  }
}

function sameHost(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

function rejected(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.CsrfRejected, message);
}
