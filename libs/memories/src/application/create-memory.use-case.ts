import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { IdempotencyRepository } from '../adapters/idempotency.repository';
import type { NewMemory, StoredMemory } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MemoryWriter } from './memory-writer';
import { WRITE_TRANSACTION } from './write-transaction';

export interface CreateMemoryOptions {
  /** Client-chosen key: the same key with the same body returns the first response. */
  readonly idempotencyKey?: string;
}

@Injectable()
export class CreateMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly writer: MemoryWriter,
    private readonly idempotency: IdempotencyRepository,
  ) {}

  async execute(
    principal: Principal,
    input: NewMemory,
    options: CreateMemoryOptions = {},
  ): Promise<StoredMemory> {
    const screened = this.writer.screenNew(input);
    const prepared = await this.writer.prepare(principal, screened);
    const staged = prepared.staged ? [prepared.staged] : [];
    const attempt = (last: boolean) =>
      this.writer.staging.withStaged(principal, staged, () =>
        this.tx.inTenant(
          principal,
          async (tx) => {
            const key = options.idempotencyKey;
            if (key !== undefined) {
              // Hash of the redacted request: no hash of a secret is kept.
              const requestHash = createHash('sha256').update(JSON.stringify(screened.value)).digest();
              const claim = await this.idempotency.claim<StoredMemory>(principal, tx, key, requestHash);
              if (claim.kind === 'replay') return { response: claim.response, replayed: true };
              if (claim.kind === 'mismatch') {
                throw new MemoryError(
                  MemoryErrorCode.IdempotencyKeyReused,
                  'this Idempotency-Key was already used with a different request body',
                );
              }
            }
            // Without a key nothing follows the row: its statement may carry the commit.
            const written =
              last && key === undefined
                ? await this.writer.storeLast(principal, tx, prepared)
                : await this.writer.store(principal, tx, prepared);
            if (written === null) return null;
            const stored: StoredMemory = {
              id: written.id,
              category: written.category,
              importance: written.importance,
            };
            if (key !== undefined) await this.idempotency.complete(principal, tx, key, stored);
            return { response: stored, replayed: false };
          },
          WRITE_TRANSACTION,
        ),
      );
    // Nothing written and the commit sent (a duplicate committed meanwhile, or a quota): again, in steps.
    const outcome = (await attempt(true)) ?? (await attempt(false));
    if (outcome === null) throw new Error('a store in steps always answers');
    const { response, replayed } = outcome;
    // A replayed request already has its secret; the one written for this attempt is not needed.
    if (replayed) await this.writer.staging.discard(principal, staged);
    return response;
  }
}
