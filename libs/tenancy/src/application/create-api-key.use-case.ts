import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { ApiKeyRepository } from '../adapters/api-key.repository';
import { UserRepository } from '../adapters/user.repository';
import { actingUserId, assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';
import type { CreatedApiKey } from '../domain/api-key';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../domain/api-key-format';
import { MEMBER_SCOPES, type Scope } from '../domain/principal';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';
import { AuditWriter } from './audit-writer';

/** The parsed request body (`CreateApiKeyBody`) plus the user from the path or `--user`. */
export interface CreateApiKeyInput {
  /** Username or user id, within the actor's tenant. */
  readonly user: string;
  readonly name: string;
  /** Member scopes when absent. */
  readonly scopes: readonly Scope[] | undefined;
  readonly expiresAt: Date | null;
  /** Default visibility of memories stored with the key (absent: the configured default). */
  readonly defaultVisibility?: 'team' | 'private' | null;
}

/** Issues a managed key for a user of the actor's tenant. The plaintext is returned once, never stored. */
@Injectable()
export class CreateApiKeyUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(ApiKeyRepository) private readonly keys: ApiKeyRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, input: CreateApiKeyInput): Promise<CreatedApiKey> {
    assertAdmin(actor);
    const scopes = input.scopes ?? MEMBER_SCOPES;
    if (input.expiresAt !== null && input.expiresAt.getTime() <= Date.now()) {
      throw invalid('expires_at must be in the future');
    }
    const scope = tenantScopeOf(actor);
    return this.tx.inTenant(scope, async (tx) => {
      const user = await this.users.findByRef(scope, tx, input.user);
      if (!user) throw new TenancyError(TenancyErrorCode.UserNotFound, `User "${input.user}" not found`);
      if (user.disabledAt !== null) throw invalid(`User "${user.username}" is disabled`);
      // The admin scope follows the user's role, so a member cannot be handed admin power by a key alone.
      if (scopes.includes('admin') && !user.isAdmin) {
        throw invalid(
          `The "admin" scope can only be granted to an admin user; "${user.username}" is not one`,
        );
      }

      const plaintext = generateApiKey();
      const key = await this.keys.insert(scope, tx, {
        userId: user.id,
        name: input.name,
        hash: hashApiKey(plaintext),
        prefix: displayPrefixOf(plaintext),
        scopes,
        expiresAt: input.expiresAt,
        defaultVisibility: input.defaultVisibility ?? null,
        createdBy: actingUserId(actor),
      });
      await this.audit.record(actor, tx, {
        action: 'api_key.create',
        targetType: 'api_key',
        targetId: key.id,
        details: { user_id: user.id, username: user.username, scopes: key.scopes, expires_at: key.expiresAt },
      });
      return { key, plaintext };
    });
  }
}

function invalid(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.InvalidInput, message);
}
