import { Inject, Injectable } from '@nestjs/common';
import { type Tx } from '@app/persistence';
import {
  NO_STORE_MESSAGE,
  SECRET_STORE,
  SecretStoreError,
  SecretStoreErrorCode,
  type ConfiguredSecretStore,
} from '@app/secrets';
import { AuditWriter, type Actor } from '@app/tenancy';
import type { RowSecret } from '../../read-model/memory-read.repository';
import { SecretBatchRepository, type UnscreenedRow } from '../adapters/secret-batch.repository';
import { sensitiveContentHash } from '../../domain/content-rules';
import { MemoryWriter } from '../../write/memory-writer';
import { SecretScreen } from '../../write/secret-screen';
import { refOf } from '../../write/secret-staging';

export interface SecretMigrationCounts {
  /** Rows screened. */
  readonly scanned: number;
  /** Rows holding at least one secret. */
  readonly found: number;
  /** Rows redacted (their secret moved to the store when it was in the content). */
  readonly migrated: number;
  /** Rows whose secret could not be stored (left as they were). */
  readonly failed: number;
}

export const NO_COUNTS: SecretMigrationCounts = { scanned: 0, found: 0, migrated: 0, failed: 0 };

export function addCounts(a: SecretMigrationCounts, b: SecretMigrationCounts): SecretMigrationCounts {
  return {
    scanned: a.scanned + b.scanned,
    found: a.found + b.found,
    migrated: a.migrated + b.migrated,
    failed: a.failed + b.failed,
  };
}

export interface SecretMigrationBatch {
  readonly tenantId: string;
  /** Only this user's rows (the seed's per-user route); every user's when absent. */
  readonly ownerId?: string;
  readonly afterId: string;
  readonly limit: number;
  /** Count what would move; change nothing. */
  readonly dryRun: boolean;
  /** Recorded on each migrated row's audit entry. */
  readonly actor: Actor;
}

/**
 * Moves secrets found in stored memories into the secret store, one batch of rows at a time,
 * inside the caller's transaction (which holds the rows' locks until it commits):
 *
 * - each row's text fields are screened as a new write would be;
 * - a secret in the content is written to the store under the row's id (a new version if an
 *   earlier, uncommitted attempt left one there), then the row is redacted, marked sensitive and
 *   pointed at the secret; the update bumps its sync sequence, so clients replace cached text;
 * - secrets only in tags, keywords, category or project are redacted and not kept;
 * - the row is queued for re-embedding from its redacted text.
 *
 * Rows already sensitive are never selected, so a second run (or a concurrent one, which waits
 * for the row locks and re-checks) moves nothing twice.
 */
@Injectable()
export class SecretMigrator {
  constructor(
    @Inject(SECRET_STORE) private readonly store: ConfiguredSecretStore,
    private readonly batches: SecretBatchRepository,
    private readonly screen: SecretScreen,
    private readonly writer: MemoryWriter,
    private readonly audit: AuditWriter,
  ) {}

  async migrateBatch(
    tx: Tx,
    batch: SecretMigrationBatch,
  ): Promise<{ counts: SecretMigrationCounts; lastId: string | null }> {
    const rows = await this.batches.lockUnscreenedBatch(tx, {
      tenantId: batch.tenantId,
      ownerId: batch.ownerId,
      afterId: batch.afterId,
      limit: batch.limit,
      lock: !batch.dryRun,
    });
    if (rows.length === 0 && !batch.dryRun && (await this.moreAfter(tx, batch))) {
      // Locking with LIMIT can come back short when a concurrent migration moved the rows this
      // batch waited for; rows further on still need screening, so stay at this checkpoint.
      return { counts: NO_COUNTS, lastId: batch.afterId };
    }
    let counts: SecretMigrationCounts = { ...NO_COUNTS, scanned: rows.length };
    for (const row of rows) {
      const screened = this.screen.screenNew({
        content: row.content,
        category: row.category,
        tags: row.tags,
        expandedKeywords: row.expandedKeywords,
        importance: 0,
        project: row.project,
      });
      if (screened.kinds.length === 0) continue;
      counts = { ...counts, found: counts.found + 1 };
      if (batch.dryRun) continue;
      const secret =
        screened.secret === null ? null : await this.storeSecret(batch.tenantId, row, screened.secret);
      if (secret === undefined) {
        counts = { ...counts, failed: counts.failed + 1 };
        continue;
      }
      const redacted = screened.value;
      await this.batches.applyRedaction(tx, row.id, {
        content: redacted.content,
        category: redacted.category,
        tags: redacted.tags,
        expandedKeywords: redacted.expandedKeywords,
        project: redacted.project,
        // Content without a secret is unchanged and keeps its hash (rewriting it could only collide).
        contentHash: secret ? sensitiveContentHash(Number(row.id)) : null,
        secret,
      });
      const owner = { tenantId: batch.tenantId, userId: row.ownerId, requestId: batch.actor.requestId };
      await this.writer.reindex(owner, tx, Number(row.id), redacted);
      await this.audit.record(batch.actor, tx, {
        action: 'memory.secret.migrate',
        targetType: 'memory',
        targetId: row.id,
        details: { redacted: screened.kinds, sensitive: secret !== null, owner_id: row.ownerId },
      });
      counts = { ...counts, migrated: counts.migrated + 1 };
    }
    return { counts, lastId: rows.length > 0 ? rows[rows.length - 1].id : null };
  }

  private async moreAfter(tx: Tx, batch: SecretMigrationBatch): Promise<boolean> {
    const next = await this.batches.lockUnscreenedBatch(tx, {
      tenantId: batch.tenantId,
      ownerId: batch.ownerId,
      afterId: batch.afterId,
      limit: 1,
      lock: false,
    });
    return next.length > 0;
  }

  /**
   * The stored secret; `undefined` when this row's secret was refused (counted as failed). An
   * unavailable store aborts the batch instead: every later row would fail the same way.
   */
  private async storeSecret(
    tenantId: string,
    row: UnscreenedRow,
    content: string,
  ): Promise<RowSecret | undefined> {
    if (this.store.kind === 'none')
      throw new SecretStoreError(SecretStoreErrorCode.Unavailable, NO_STORE_MESSAGE);
    try {
      const stored = await this.store.put(refOf({ tenantId, userId: row.ownerId }, row.id), content, {
        overwrite: true,
      });
      return { ref: stored.ref, version: stored.version ?? null };
    } catch (error) {
      if (error instanceof SecretStoreError && error.code !== SecretStoreErrorCode.Unavailable)
        return undefined;
      throw error;
    }
  }
}
