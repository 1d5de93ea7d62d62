import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { TransactionRunner, type TenantScope, type Tx } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import type { ImportedMemory, MemoryFilter, MemoryPatch, NewMemory, StoredMemory } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { IdempotencyRepository } from './idempotency.repository';
import { MemoryIndexing, type IndexInput } from './memory-indexing';
import { MemoryLifecycle } from './memory-lifecycle';
import { MemoryUpdate } from './memory-update';
import { NewMemoryRows, TeamProbeNeeded, type PreparedMemory } from './new-memory-rows';
import { SecretStaging, type StagedSecret } from './secret-staging';
import { WRITE_TRANSACTION } from './write-transaction';

export interface CreateOptions {
  /** Client-chosen key: the same key with the same request returns the first answer, writing nothing. */
  readonly idempotencyKey?: string;
  /**
   * A batch from an import: an item's error names the item, the key covers the items' links too,
   * and links between items of the batch are made again between the new rows.
   */
  readonly asImport?: boolean;
  /** Runs in the rows' transaction after they are written (an import's audit entry, its statistics job). */
  readonly within?: (tx: Tx, stored: readonly StoredMemory[]) => Promise<void>;
}

/** A write's answer and whether it replays an earlier request with the same key. */
interface Outcome {
  readonly response: StoredMemory[];
  readonly replayed: boolean;
}

/** One memory stored (not imported): its request and answer are kept as one object, not a list. */
const single = (items: readonly unknown[], options: CreateOptions) => items.length === 1 && !options.asImport;

const sourceLinksOf = (item: ImportedMemory) => [item.sourceId ?? null, item.sourceLinks ?? []];

/**
 * The one write path of memories. `create` stores new memories (store and import): screening,
 * secrets stored ahead of their rows and discarded when the rows do not commit, the idempotency
 * claim, the rows with their index state, outbox job and audit entry, and their links, in one
 * transaction. `update` changes one memory; `delete`, `deleteMatching`, `restore` and `purge` move it
 * through its life. Nothing outside `write/` drives the steps itself.
 */
@Injectable()
export class MemoryWriter {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly rows: NewMemoryRows,
    private readonly changes: MemoryUpdate,
    private readonly lifecycle: MemoryLifecycle,
    private readonly indexing: MemoryIndexing,
    private readonly staging: SecretStaging,
    private readonly idempotency: IdempotencyRepository,
  ) {}

  /** Stores `items` in one transaction, every one or none; answers in input order. */
  async create(
    principal: Principal,
    items: readonly (NewMemory | ImportedMemory)[],
    options: CreateOptions = {},
  ): Promise<StoredMemory[]> {
    const screened = items.map((item, index) => {
      if (!options.asImport) return this.rows.screenNew(item);
      try {
        return this.rows.screenNew(item);
      } catch (error) {
        if (error instanceof MemoryError)
          throw new MemoryError(error.code, `item ${index}: ${error.message}`);
        throw error;
      }
    });
    // Secrets first (one by one, so a failure leaves little to clean up), then every row at once.
    let prepared: PreparedMemory[] = [];
    const staged: StagedSecret[] = [];
    const stagedItems: Omit<PreparedMemory, 'near' | 'probed'>[] = [];
    await this.staging.withStaged(principal, staged, async () => {
      for (const s of screened) {
        const item = await this.rows.stage(principal, s);
        if (item.staged) staged.push(item.staged);
        stagedItems.push(item);
      }
      // Then the teammates' duplicates of every item at once (embedded together for an import).
      prepared = await this.rows.withNear(principal, stagedItems);
    });
    // Hash of the redacted request: no hash of a secret is kept.
    const values = screened.map((s) => s.value);
    const request = options.asImport
      ? { import: values, links: (items as readonly ImportedMemory[]).map(sourceLinksOf) }
      : single(items, options)
        ? values[0]
        : values;
    const requestHash = createHash('sha256').update(JSON.stringify(request)).digest();
    // A single row with nothing after it: its statement may carry the commit (one round trip).
    const alone = single(items, options) && options.idempotencyKey === undefined && !options.within;
    const attempt = (last: boolean) =>
      this.staging.withStaged(principal, staged, async () => {
        try {
          return await this.tx.inTenant(
            principal,
            (tx) => this.writeRows(principal, tx, items, prepared, requestHash, options, last),
            WRITE_TRANSACTION,
          );
        } catch (error) {
          if (!(error instanceof TeamProbeNeeded)) throw error;
          // Rolled back: the caller's teammates share team memories now, so look for near
          // restatements of every item (the secrets staged stay) and write again.
          prepared = await this.rows.withNear(principal, stagedItems, 'always');
          return this.tx.inTenant(
            principal,
            (tx) => this.writeRows(principal, tx, items, prepared, requestHash, options, last),
            WRITE_TRANSACTION,
          );
        }
      });
    // Nothing written and the commit sent (a duplicate committed meanwhile, or a quota): again, in steps.
    const outcome = (await attempt(alone)) ?? (await attempt(false));
    if (outcome === null) throw new Error('a store in steps always answers');
    // A replayed request already has its secrets; the ones written for this attempt are not needed.
    if (outcome.replayed) await this.staging.discard(principal, staged);
    return outcome.response;
  }

  /** Changes one memory (content, tags, keywords, category, importance, visibility, expiry). */
  update(principal: Principal, id: number, patch: MemoryPatch): Promise<{ updated: number }> {
    return this.changes.apply(principal, id, patch);
  }

  /** Soft delete; repeating it answers a fixed preview. */
  delete(principal: Principal, id: number): Promise<{ deleted: number; preview: string }> {
    return this.lifecycle.delete(principal, id);
  }

  /** Soft-deletes the caller's own live memories matching `filter`; answers their ids. */
  deleteMatching(principal: Principal, filter: MemoryFilter): Promise<number[]> {
    return this.lifecycle.deleteMatching(principal, filter);
  }

  /** Undoes a soft delete and queues the memory's index again. */
  restore(principal: Principal, id: number): Promise<{ restored: number }> {
    return this.lifecycle.restore(principal, id);
  }

  /** Removes a soft-deleted memory for good. */
  purge(principal: Principal, id: number): Promise<{ purged: number }> {
    return this.lifecycle.purge(principal, id);
  }

  /** Queues the memory's index to be built again from `input` (its text changed outside `update`). */
  reindex(
    owner: TenantScope & { readonly requestId?: string },
    tx: Tx,
    memoryId: number,
    input: IndexInput,
  ): Promise<void> {
    return this.indexing.schedule(owner, tx, memoryId, input);
  }

  private async writeRows(
    principal: Principal,
    tx: Tx,
    items: readonly (NewMemory | ImportedMemory)[],
    prepared: readonly PreparedMemory[],
    requestHash: Buffer,
    options: CreateOptions,
    last: boolean,
  ): Promise<Outcome | null> {
    const key = options.idempotencyKey;
    if (key !== undefined) {
      // A concurrent request with the same key waits here for this one to commit, then replays it.
      const claim = await this.idempotency.claim<StoredMemory | StoredMemory[]>(
        principal,
        tx,
        key,
        requestHash,
      );
      if (claim.kind === 'replay') return { response: [claim.response].flat(), replayed: true };
      if (claim.kind === 'mismatch') {
        throw new MemoryError(
          MemoryErrorCode.IdempotencyKeyReused,
          'this Idempotency-Key was already used with a different request body',
        );
      }
    }
    const stored: StoredMemory[] = [];
    for (const p of prepared) {
      const written = await this.rows.store(principal, tx, p, last);
      if (written === null) return null;
      const { id, category, importance, reviewState } = written;
      // Nothing written: an existing memory (the caller's, or a teammate's team memory) says this.
      const duplicate = written.created
        ? undefined
        : (written.duplicate ?? { match: 'exact', similarity: 1 });
      stored.push({
        id,
        category,
        importance,
        ...(duplicate ? { duplicate } : {}),
        ...(reviewState ? { reviewState } : {}),
      });
    }
    if (options.asImport) await this.remakeLinks(principal, tx, items as readonly ImportedMemory[], stored);
    await options.within?.(tx, stored);
    // A single store keeps its answer as one object: replays of keys written before stay the same.
    if (key !== undefined) {
      await this.idempotency.complete(principal, tx, key, single(items, options) ? stored[0] : stored);
    }
    return { response: stored, replayed: false };
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
        // Links to memories outside this import (or duplicates folded into one row) are dropped, and
        // so are links from or to a teammate's memory an item was folded into (not the caller's).
        if (dstId === undefined || dstId === stored[i].id) continue;
        const folded = (s: StoredMemory | undefined) => s?.duplicate?.teammates === true;
        if (folded(stored[i]) || folded(stored.find((s) => s.id === dstId))) continue;
        await this.rows.linkImported(principal, tx, { srcId: stored[i].id, dstId, linkType: link.linkType });
      }
    }
  }
}
