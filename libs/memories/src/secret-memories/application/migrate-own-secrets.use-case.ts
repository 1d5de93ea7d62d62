import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { addCounts, NO_COUNTS, SecretMigrator, type SecretMigrationCounts } from './secret-migrator';

const BATCH = 200;

/**
 * `POST /api/memories/migrate-secrets` (seed contract): moves secrets found in the caller's own
 * memories into the secret store, batch by batch, and answers when done. Idempotent: rows already
 * migrated are sensitive and never screened again.
 */
@Injectable()
export class MigrateOwnSecretsUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly migrator: SecretMigrator,
  ) {}

  async execute(principal: Principal): Promise<SecretMigrationCounts> {
    let total = NO_COUNTS;
    let afterId = '0';
    for (;;) {
      const { counts, lastId } = await this.tx.inTenant(principal, (tx) =>
        this.migrator.migrateBatch(tx, {
          tenantId: principal.tenantId,
          ownerId: principal.userId,
          afterId,
          limit: BATCH,
          dryRun: false,
          actor: principal,
        }),
      );
      total = addCounts(total, counts);
      if (lastId === null) return total;
      afterId = lastId;
    }
  }
}
