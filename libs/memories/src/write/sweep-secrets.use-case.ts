import { Inject, Injectable, Logger } from '@nestjs/common';
import { HandlesJob } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { SECRET_STORE, type ConfiguredSecretStore } from '@app/secrets';
import { SecretCleanupRepository } from './secret-cleanup.repository';
import { refOf } from './secret-staging';

const BATCH = 100;

/**
 * `secrets.cleanup`: deletes Vault secrets that no row points at — written for a row whose
 * transaction then failed, or let go of by a purge, a retention run, a user's deletion or an
 * update that no longer holds a secret. An entry whose row does point at the secret (the write
 * committed after all) is just dropped. Entries stay while the store is unavailable.
 */
@Injectable()
export class SweepSecretsUseCase {
  private readonly logger = new Logger('SecretCleanup');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SecretCleanupRepository) private readonly cleanup: SecretCleanupRepository,
    @Inject(SECRET_STORE) private readonly store: ConfiguredSecretStore,
  ) {}

  /** `secrets.cleanup`, every five minutes cluster-wide. */
  @HandlesJob('secrets.cleanup', {
    schedule: { slotMs: 5 * 60_000, enqueueEveryMs: 60_000, idPrefix: 'secrets-cleanup' },
  })
  async onSchedule(): Promise<void> {
    const { deleted, kept } = await this.execute();
    if (deleted + kept > 0) this.logger.log(`cleanup: ${deleted} secrets deleted, ${kept} still in use`);
  }

  async execute(): Promise<{ deleted: number; kept: number }> {
    // Entries name Vault paths; without Vault configured they wait for it.
    if (this.store.kind !== 'vault') return { deleted: 0, kept: 0 };
    let deleted = 0;
    let kept = 0;
    for (;;) {
      const step = await this.tx.asSystem(async (tx) => {
        const due = await this.cleanup.lockDue(tx, BATCH);
        let removed = 0;
        for (const entry of due) {
          if (await this.cleanup.isReferenced(tx, entry)) {
            kept += 1;
          } else {
            await this.store.delete(
              refOf({ tenantId: entry.tenantId, userId: entry.ownerId }, entry.memoryId),
            );
            removed += 1;
          }
          await this.cleanup.removeSystem(tx, entry.id);
        }
        return { count: due.length, removed };
      });
      deleted += step.removed;
      if (step.count < BATCH) break;
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} secrets no memory points at`);
    return { deleted, kept };
  }
}
