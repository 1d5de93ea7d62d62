import { Inject, Injectable, Logger } from '@nestjs/common';
import { TransactionRunner, type TenantScope, type Tx } from '@app/persistence';
import {
  SECRET_STORE,
  SecretStoreError,
  SecretStoreErrorCode,
  NO_STORE_MESSAGE,
  type ConfiguredSecretStore,
  type SecretRef,
  type SecretStore,
} from '@app/secrets';
import { type Principal } from '@app/tenancy';
import { MemoryWriteRepository } from './memory-write.repository';
import { type RowSecret } from '../read-model/memory-read.repository';
import { SecretCleanupRepository } from './secret-cleanup.repository';

/**
 * How long an intent waits before the cleanup job may act on it: far longer than any write
 * transaction, so the job never races a write that is still committing.
 */
export const SECRET_INTENT_GRACE_SECONDS = 15 * 60;

/** A secret written to the store ahead of the row that will point at it. */
export interface StagedSecret {
  readonly memoryId: number;
  readonly secret: RowSecret;
  /** True when the memory id was reserved for a new row (nothing else can point at its secret). */
  readonly newMemory: boolean;
  /** The cleanup intent to drop when the row commits (Vault only). */
  readonly intentId: string | null;
}

/**
 * Write order for secrets: the secret is stored first, then the row is committed.
 *
 * `stage` reserves the memory id (for new memories), records a cleanup intent for Vault, and
 * writes the secret. The caller's transaction then inserts/updates the row and calls `confirm`,
 * which removes the intent in that same transaction. If the transaction fails, `discard` deletes
 * a new memory's secret at once; whatever it cannot delete (Vault down, or an update whose path a
 * committed row still uses) is left to the cleanup job through the intent.
 */
@Injectable()
export class SecretStaging {
  private readonly logger = new Logger('SecretStaging');

  constructor(
    @Inject(SECRET_STORE) private readonly store: ConfiguredSecretStore,
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryWriteRepository,
    private readonly cleanup: SecretCleanupRepository,
  ) {}

  /**
   * `existing` for an update of that memory, with its owner: the secret goes under the owner's
   * path (where reveals read it), whoever writes it; otherwise a new id is reserved for the caller.
   */
  async stage(
    principal: Principal,
    content: string,
    existing?: { id: number; owner: TenantScope },
  ): Promise<StagedSecret> {
    const store = this.requireStore();
    const path = existing?.owner ?? principal;
    const existingId = existing?.id;
    const { memoryId, intentId } = await this.tx.inTenant(principal, async (tx) => {
      const id = existingId ?? (await this.memories.reserveId(tx));
      const where = store.locate(refOf(path, id));
      const intent =
        where === null
          ? null
          : await this.cleanup.recordIntent(principal, tx, {
              memoryId: id,
              ref: where,
              graceSeconds: SECRET_INTENT_GRACE_SECONDS,
            });
      return { memoryId: id, intentId: intent };
    });
    const stored = await store.put(refOf(path, memoryId), content, {
      overwrite: existingId !== undefined,
    });
    return {
      memoryId,
      secret: { ref: stored.ref, version: stored.version ?? null },
      newMemory: existingId === undefined,
      intentId,
    };
  }

  /** Inside the row's transaction: the row now points at the secret, so it needs no cleanup. */
  async confirm(principal: Principal, tx: Tx, staged: readonly StagedSecret[]): Promise<void> {
    await this.cleanup.remove(
      principal,
      tx,
      staged.flatMap((s) => (s.intentId === null ? [] : [s.intentId])),
    );
  }

  /** After the row's transaction failed (or stored nothing new). Never throws. */
  async discard(principal: Principal, staged: readonly StagedSecret[]): Promise<void> {
    for (const s of staged) {
      if (!s.newMemory || s.intentId === null) continue;
      try {
        await this.store.delete(refOf(principal, s.memoryId));
        await this.tx.inTenant(principal, (tx) => this.cleanup.remove(principal, tx, [s.intentId as string]));
      } catch (error) {
        this.logger.warn(
          `secret of memory ${s.memoryId} left for the cleanup job: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  /** Runs `write` with the secrets staged; discards them if it fails. */
  async withStaged<T>(
    principal: Principal,
    staged: readonly StagedSecret[],
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      await this.discard(principal, staged);
      throw error;
    }
  }

  private requireStore(): SecretStore {
    if (this.store.kind === 'none')
      throw new SecretStoreError(SecretStoreErrorCode.Unavailable, NO_STORE_MESSAGE);
    return this.store;
  }
}

export function refOf(scope: { tenantId: string; userId: string }, memoryId: number | string): SecretRef {
  return { tenantId: scope.tenantId, userId: scope.userId, memoryId };
}
