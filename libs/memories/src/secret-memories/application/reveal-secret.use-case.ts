import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import {
  CIPHERTEXT_PREFIX,
  NO_STORE_MESSAGE,
  SECRET_STORE,
  SecretStoreError,
  SecretStoreErrorCode,
  type ConfiguredSecretStore,
  type SecretStoreKind,
} from '@app/secrets';
import {
  AuditWriter,
  hasScope,
  missingScopes,
  TenancyError,
  TenancyErrorCode,
  type Principal,
} from '@app/tenancy';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { MemoryError, MemoryErrorCode } from '../../domain/memory.errors';
import { refOf } from '../../write/secret-staging';

export interface RevealedSecret {
  readonly id: number;
  readonly content: string;
  readonly category: string;
  /** Where the original came from; `plain` for a memory that holds no secret. */
  readonly source: SecretStoreKind | 'plain';
}

/**
 * The original content of a sensitive memory (`POST /api/memories/:id/secret`, MCP `secret_get`).
 * Needs the `secrets:read` scope (checked here, so that a refusal is audited like a reveal) and the
 * memory's owner, an explicit share (direct or by tag), or an admin; a teammate who reads a team
 * memory's redacted text gets 403. An invisible or deleted memory, or one without a secret, answers 404. Each
 * reveal writes an audit row (who, which memory, the request id) in the transaction that read the
 * row; each refusal (403, 404) writes a `memory.secret.reveal.denied` row with the reason.
 */
@Injectable()
export class RevealSecretUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly audit: AuditWriter,
    @Inject(SECRET_STORE) private readonly store: ConfiguredSecretStore,
  ) {}

  async execute(principal: Principal, id: number): Promise<RevealedSecret> {
    if (missingScopes(principal, ['secrets:read']).length > 0) {
      await this.recordDenied(principal, id, 'missing_scope');
      throw new TenancyError(
        TenancyErrorCode.Forbidden,
        'This API key lacks the "secrets:read" scope needed to reveal a secret',
      );
    }
    try {
      return await this.reveal(principal, id);
    } catch (error) {
      if (error instanceof MemoryError) {
        await this.recordDenied(principal, id, error.kind === 'forbidden' ? 'not_owner' : 'not_found');
      }
      throw error;
    }
  }

  /** In a transaction of its own: the refused request's transaction (if any) rolled back. */
  private async recordDenied(principal: Principal, id: number, reason: string): Promise<void> {
    await this.tx.inTenant(principal, (tx) =>
      this.audit.record(principal, tx, {
        action: 'memory.secret.reveal.denied',
        targetType: 'memory',
        targetId: id,
        details: { reason },
      }),
    );
  }

  private async reveal(principal: Principal, id: number): Promise<RevealedSecret> {
    return this.tx.inTenant(principal, async (tx) => {
      const access = await this.memories.access(principal, tx, id);
      if (!access?.readable) throw MemoryError.notFound(id);
      const owner = { tenantId: principal.tenantId, userId: access.ownerId };
      const row = await this.memories.findSecret(owner, tx, id);
      if (!row) throw MemoryError.notFound(id);
      // Nothing secret: the caller can read this content anyway.
      if (!row.isSensitive) return { id, content: row.content, category: row.category, source: 'plain' };
      // A teammate's team memory: its redacted text is readable, its secret needs an explicit share.
      if (access.ownerId !== principal.userId && !access.shared && !hasScope(principal, 'admin')) {
        throw new MemoryError(
          MemoryErrorCode.Forbidden,
          `Memory ${id} belongs to a teammate: its secret is revealed only to its owner, users it is shared with, and admins`,
        );
      }
      if (row.secret === null) throw MemoryError.notFound(id);
      const source: SecretStoreKind = row.secret.ref.startsWith(CIPHERTEXT_PREFIX) ? 'encrypted' : 'vault';
      if (this.store.kind !== source) {
        throw new SecretStoreError(
          SecretStoreErrorCode.Unavailable,
          this.store.kind === 'none'
            ? NO_STORE_MESSAGE
            : `Memory ${id} was stored with the ${source === 'vault' ? 'Vault' : 'local encryption'} secret store, which this server is not configured for`,
        );
      }
      const content = await this.store.get(refOf(owner, id), {
        ref: row.secret.ref,
        version: row.secret.version ?? undefined,
      });
      await this.audit.record(principal, tx, {
        action: 'memory.secret.reveal',
        targetType: 'memory',
        targetId: id,
        details: { source },
      });
      return { id, content, category: row.category, source };
    });
  }
}
