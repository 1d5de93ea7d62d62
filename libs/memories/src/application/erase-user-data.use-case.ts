import { Inject, Injectable, Logger } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { assertAdmin, AuditWriter, FindUserUseCase, type Actor, isSystemActor } from '@app/tenancy';
import { UserDataRepository, type ErasureCounts } from '../adapters/user-data.repository';
import { SweepSecretsUseCase } from '../write/sweep-secrets.use-case';

export interface ErasureReceipt extends ErasureCounts {
  readonly userId: string;
  readonly username: string;
  /** Vault secrets deleted right away; the rest are deleted by the scheduled cleanup. */
  readonly vaultSecretsDeleted: number;
}

/**
 * `DELETE /api/admin/users/:id/data`: erases everything the service keeps of one user's memories
 * (rows, vectors, index states, deletion history, idempotency records, queued jobs, and their
 * secrets: local ciphertexts with the rows, Vault secrets by the cleanup sweep run at once) in one
 * system transaction, and records the erasure with its counts in the audit log. The user and
 * their keys stay (disable or revoke them separately); the audit log stays.
 */
@Injectable()
export class EraseUserDataUseCase {
  private readonly logger = new Logger('EraseUserData');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(FindUserUseCase) private readonly findUser: FindUserUseCase,
    @Inject(UserDataRepository) private readonly data: UserDataRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
    @Inject(SweepSecretsUseCase) private readonly sweep: SweepSecretsUseCase,
  ) {}

  async execute(actor: Actor, userRef: string): Promise<ErasureReceipt> {
    assertAdmin(actor);
    const user = await this.findUser.execute(actor, userRef);
    const counts = await this.tx.asSystem(
      async (tx) => {
        const erased = await this.data.erase(tx, { tenantId: user.tenantId, userId: user.id });
        await this.audit.record(actor, tx, {
          action: 'user.data.erase',
          targetType: 'user',
          targetId: user.id,
          details: { username: user.username, ...erased },
        });
        return erased;
      },
      // Erasing a large user's rows may take longer than one request's statement; the admin's reads
      // see the erasure as their own write.
      { unbounded: true, author: isSystemActor(actor) ? undefined : actor },
    );
    let vaultSecretsDeleted = 0;
    if (counts.vaultSecrets > 0) {
      try {
        vaultSecretsDeleted = (await this.sweep.execute()).deleted;
      } catch (error) {
        // Vault unavailable: the entries stay and the scheduled cleanup deletes them later.
        this.logger.warn(`erasure of ${user.id}: Vault cleanup deferred: ${String(error)}`);
      }
    }
    return { userId: user.id, username: user.username, ...counts, vaultSecretsDeleted };
  }
}
