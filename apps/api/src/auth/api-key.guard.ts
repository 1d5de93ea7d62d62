import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import {
  AuthenticateApiKeyUseCase,
  missingScopes,
  TenancyError,
  TenancyErrorCode,
  type Scope,
} from '@app/tenancy';
import { IS_PUBLIC_KEY, REQUIRED_SCOPES_KEY } from './auth.decorators';
import './authenticated-request';

/**
 * Global guard: every route needs `Authorization: Bearer <key>` unless marked @Public().
 * Sets `request.principal` (with the request id) and enforces @RequireScopes.
 * Failures throw TenancyError, which the exception filter maps to 401 (+ WWW-Authenticate) / 403.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(AuthenticateApiKeyUseCase) private readonly authenticate: AuthenticateApiKeyUseCase,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets)) return true;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = await this.authenticate.execute(
      bearerToken(request.headers.authorization),
      String(request.id),
    );
    request.principal = principal;

    const required = this.reflector.getAllAndMerge<Scope[]>(REQUIRED_SCOPES_KEY, targets) ?? [];
    const missing = missingScopes(principal, required);
    if (missing.length > 0) {
      const names = missing.map((scope) => `"${scope}"`).join(', ');
      throw new TenancyError(
        TenancyErrorCode.Forbidden,
        `This API key lacks the ${names} scope${missing.length > 1 ? 's' : ''} required here`,
      );
    }
    return true;
  }
}

/** Extracts the key from `Authorization: Bearer <key>` (scheme case-insensitive). */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw new TenancyError(
      TenancyErrorCode.Unauthenticated,
      'Missing API key: send "Authorization: Bearer <key>"',
    );
  }
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) {
    throw new TenancyError(
      TenancyErrorCode.Unauthenticated,
      'The Authorization header must be "Bearer <key>"',
    );
  }
  return match[1];
}
