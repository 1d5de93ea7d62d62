import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { TransactionRunner } from '@app/persistence';
import { ConsoleSessionRepository } from '../adapters/console-session.repository';
import { ApiKeyRepository } from '../adapters/api-key.repository';
import { LAST_USED_RESOLUTION_SECONDS } from '../domain/api-key';
import { isSessionTokenShape, sessionTokenHash } from '../domain/console-sign-in';
import type { Principal } from '../domain/principal';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { IdentityKeyResolver } from './identity-key-resolver';

/**
 * The caller of a console session cookie: the live session's identity key as a principal (401 when
 * the session ended, went idle or expired, or its key was revoked or its user disabled). One
 * statement per request; the session's idle clock and the key's last-used time are written at most
 * once a minute. Not cached, so a sign-out ends the session on every replica at once.
 */
@Injectable()
export class AuthenticateConsoleSessionUseCase {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    private readonly sessions: ConsoleSessionRepository,
    private readonly keys: ApiKeyRepository,
    private readonly identities: IdentityKeyResolver,
  ) {}

  async execute(sessionToken: string, requestId?: string): Promise<Principal> {
    if (!isSessionTokenShape(sessionToken)) throw ended();
    const hash = sessionTokenHash(sessionToken);
    const found = await this.tx.asSystem(async (tx) => {
      const live = await this.sessions.findLive(tx, hash, {
        idleSeconds: this.config.oauth.consoleSessions.idleSeconds,
        touchAfterSeconds: LAST_USED_RESOLUTION_SECONDS,
      });
      if (live?.seenDue) await this.sessions.touch(tx, live.tenantId, hash);
      if (live?.key.touchDue) await this.keys.touchLastUsed(tx, live.key.id, LAST_USED_RESOLUTION_SECONDS);
      return live;
    });
    if (!found) throw ended();
    return { ...this.identities.principalOf(found.key, found.key.scopes), requestId };
  }
}

function ended(): TenancyError {
  return new TenancyError(
    TenancyErrorCode.Unauthenticated,
    'Your console session has ended (signed out, idle or expired): sign in again',
  );
}
