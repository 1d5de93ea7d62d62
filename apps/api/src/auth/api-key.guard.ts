import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import {
  AuthenticateApiKeyUseCase,
  GrantPrivateAccessUseCase,
  missingScopes,
  TenancyError,
  TenancyErrorCode,
  type Scope,
} from '@app/tenancy';
import { IS_PUBLIC_KEY, REQUIRED_SCOPES_KEY } from './auth.decorators';
import './authenticated-request';
import { ConsoleSessionAuth } from './console-session-auth';
import { principalWithAccess } from './request-principal';

/**
 * Global guard: every route needs `Authorization: Bearer <key>` unless marked @Public() (or, on
 * `/api`, the console's session cookie: ConsoleSessionAuth).
 * Sets `request.principal` (with the request id; with private access when an admin asked for it,
 * see `principalWithAccess`) and enforces @RequireScopes.
 * Failures throw TenancyError, which the exception filter maps to 401 (+ WWW-Authenticate) / 403.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(AuthenticateApiKeyUseCase) private readonly authenticate: AuthenticateApiKeyUseCase,
    @Inject(GrantPrivateAccessUseCase) private readonly grant: GrantPrivateAccessUseCase,
    @Optional() @Inject(ConsoleSessionAuth) private readonly session?: ConsoleSessionAuth,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets)) return true;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = await principalWithAccess(request, this.authenticate, this.grant, this.session);

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
