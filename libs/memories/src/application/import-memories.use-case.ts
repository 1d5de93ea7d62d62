import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import { TransactionRunner, type Tx } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { IdempotencyRepository } from '../adapters/idempotency.repository';
import type { ImportedMemory, StoredMemory } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MEMORY_LIMITS, type MemoryLimits } from './memory-limits';
import { MemoryWriter, type PreparedMemory } from './memory-writer';
import type { StagedSecret } from '../secret-memories/application/secret-staging';
import { WRITE_TRANSACTION } from './write-transaction';

export interface ImportMemoriesOptions {
  /** Client-chosen key: the same key with the same batch returns the first answer, importing nothing. */
  readonly idempotencyKey?: string;
}

const sourceLinksOf = (item: ImportedMemory) => [item.sourceId ?? null, item.sourceLinks ?? []];

/** Imports of at least this many memories refresh the planner statistics right after they commit. */
export const ANALYZE_AFTER_IMPORTED = 100;

/**
 * Stores a batch in one transaction: every item or none. Answers in input order. Items from an
 * export get their links to other items of the same batch made again between the new rows.
 */
@Injectable()
export class ImportMemoriesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly writer: MemoryWriter,
    private readonly audit: AuditWriter,
    private readonly outbox: OutboxWriter,
    @Inject(MEMORY_LIMITS) private readonly limits: MemoryLimits,
    private readonly idempotency: IdempotencyRepository = new IdempotencyRepository(),
  ) {}

  async execute(
    principal: Principal,
    items: readonly ImportedMemory[],
    options: ImportMemoriesOptions = {},
  ): Promise<StoredMemory[]> {
    if (items.length > this.limits.maxImportBatch) {
      throw new MemoryError(
        MemoryErrorCode.BatchTooLarge,
        `import accepts at most ${this.limits.maxImportBatch} memories per request; got ${items.length}`,
      );
    }
    const screened = items.map((item, index) => {
      try {
        return this.writer.screenNew(item);
      } catch (error) {
        if (error instanceof MemoryError)
          throw new MemoryError(error.code, `item ${index}: ${error.message}`);
        throw error;
      }
    });
    // Secrets first (one by one, so a failure leaves little to clean up), then every row at once.
    const prepared: PreparedMemory[] = [];
    const staged: StagedSecret[] = [];
    await this.writer.staging.withStaged(principal, staged, async () => {
      for (const s of screened) {
        const p = await this.writer.prepare(principal, s);
        if (p.staged) staged.push(p.staged);
        prepared.push(p);
      }
    });
    const { response, replayed } = await this.writer.staging.withStaged(principal, staged, () =>
      this.tx.inTenant(
        principal,
        async (tx) => {
          const key = options.idempotencyKey;
          if (key !== undefined) {
            // Hash of the redacted batch (no hash of a secret is kept). A concurrent request with
            // the same key waits here for this one to commit, then replays its answer.
            const requestHash = createHash('sha256')
              .update(
                JSON.stringify({ import: screened.map((s) => s.value), links: items.map(sourceLinksOf) }),
              )
              .digest();
            const claim = await this.idempotency.claim<StoredMemory[]>(principal, tx, key, requestHash);
            if (claim.kind === 'replay') return { response: claim.response, replayed: true };
            if (claim.kind === 'mismatch') {
              throw new MemoryError(
                MemoryErrorCode.IdempotencyKeyReused,
                'this Idempotency-Key was already used with a different request body',
              );
            }
          }
          const results: StoredMemory[] = [];
          for (const p of prepared) {
            const { id, category, importance } = await this.writer.store(principal, tx, p);
            results.push({ id, category, importance });
          }
          await this.remakeLinks(principal, tx, items, results);
          if (prepared.length >= ANALYZE_AFTER_IMPORTED) {
            // A bulk write can leave the planner's picture of this user far behind (estimated at
            // 1 row); refresh it now instead of waiting for autovacuum.
            await this.outbox.enqueue(principal, tx, {
              name: 'maintenance.analyze',
              payload: { tenantId: principal.tenantId, tables: ['memories', 'memory_index_state'] },
              requestId: principal.requestId,
            });
          }
          await this.audit.record(principal, tx, {
            action: 'memory.import',
            targetType: 'memory',
            details: { count: items.length, ids: results.map((r) => r.id) },
          });
          if (key !== undefined) await this.idempotency.complete(principal, tx, key, results);
          return { response: results, replayed: false };
        },
        WRITE_TRANSACTION,
      ),
    );
    // A replayed batch already has its secrets; the ones written for this attempt are not needed.
    if (replayed) await this.writer.staging.discard(principal, staged);
    return response;
  }

  private async remakeLinks(
    principal: Principal,
    tx: Tx,
    items: readonly ImportedMemory[],
    stored: readonly StoredMemory[],
  ): Promise<void> {
    const newIds = new Map<number, number>();
    for (const [i, item] of items.entries()) {
      if (item.sourceId !== undefined) newIds.set(item.sourceId, stored[i].id);
    }
    for (const [i, item] of items.entries()) {
      for (const link of item.sourceLinks ?? []) {
        const dstId = newIds.get(link.id);
        // Links to memories outside this import (or duplicates folded into one row) are dropped.
        if (dstId === undefined || dstId === stored[i].id) continue;
        await this.writer.linkImported(principal, tx, {
          srcId: stored[i].id,
          dstId,
          linkType: link.linkType,
        });
      }
    }
  }
}
