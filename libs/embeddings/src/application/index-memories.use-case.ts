import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  HandlesJob,
  indexInput,
  indexInputDigest,
  indexInputHash,
  isFinalAttempt,
  type JobContext,
  type JobPayload,
} from '@app/jobs';
import { TransactionRunner, type Tx } from '@app/persistence';
import { EmbeddingModelRepository } from '../adapters/embedding-model.repository';
import { type EmbeddingModel } from '../domain/embedding-model';
import { errorText } from '../domain/embedding.errors';
import { MemoryEmbeddingRepository } from '../adapters/memory-embedding.repository';
import {
  MemoryIndexStateRepository,
  type IndexableMemory,
  type IndexedInput,
  type IndexRequest,
} from '../adapters/memory-index-state.repository';
import {
  EmbedMemoriesStep,
  type EmbeddedMemories,
  type MemoryIndexStep,
  type MemoryToEmbed,
} from './embed-memories.step';

export type { EmbeddedMemories, MemoryIndexStep, MemoryToEmbed } from './embed-memories.step';

/**
 * `changed`: the memory was edited while its vector was computed; nothing was written, and the job
 * the edit queued indexes the new text. `memory-gone`: not found for that tenant and owner, or
 * soft-deleted (its pending state is then settled as `skipped`).
 */
export type IndexMemoryOutcome = 'indexed' | 'already-indexed' | 'memory-gone' | 'changed';

export interface IndexMemoryOptions {
  /** No retry follows this attempt: a failure marks the states `failed`. */
  readonly finalAttempt?: boolean;
}

/** memory id → outcome. */
export type IndexMemoriesResult = Map<string, IndexMemoryOutcome>;

/**
 * `memory.index-batch` (and `memory.index`, one memory): brings many memories' vectors up to date
 * in three steps, so the model never runs inside a database transaction:
 * 1. one short transaction reads the memories, their index states and stored input hashes;
 * 2. the step embeds every changed input in one call per model, no transaction open;
 * 3. one short transaction locks the memories and their states, keeps only the vectors computed
 *    from the text each memory holds now (an edit meanwhile queued its own job), upserts them in
 *    one statement per model and marks the states indexed.
 * Idempotent, because the queue delivers at least once and two jobs may hold the same memory: the
 * state lock serialises them, and whoever comes second finds the input indexed and writes nothing.
 * A soft-deleted memory is not embedded; under the same locks its pending state becomes `skipped`,
 * so it leaves the backlog and the sweep (a restore marks it pending again with a new job).
 */
@Injectable()
export class IndexMemoriesUseCase {
  private readonly logger = new Logger('IndexMemories');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryIndexStateRepository) private readonly states: MemoryIndexStateRepository,
    @Inject(EmbeddingModelRepository) private readonly models: EmbeddingModelRepository,
    @Inject(MemoryEmbeddingRepository) private readonly embeddings: MemoryEmbeddingRepository,
    @Inject(EmbedMemoriesStep) private readonly step: MemoryIndexStep,
  ) {}

  @HandlesJob('memory.index-batch')
  async onBatch(payload: JobPayload<'memory.index-batch'>, job: JobContext): Promise<void> {
    await this.execute(payload.memories, { finalAttempt: isFinalAttempt(job) });
  }

  /** A single memory's job, as relays before batching queued them. */
  @HandlesJob('memory.index')
  async onJob(payload: JobPayload<'memory.index'>, job: JobContext): Promise<void> {
    await this.execute([payload], { finalAttempt: isFinalAttempt(job) });
  }

  async execute(
    requests: readonly IndexRequest[],
    options: IndexMemoryOptions = {},
  ): Promise<IndexMemoriesResult> {
    const outcomes: IndexMemoriesResult = new Map(requests.map((r) => [r.memoryId, 'memory-gone']));
    const { models, pending, unsettled, deleted, refill } = await this.tx.asSystem((tx) =>
      this.read(tx, requests, outcomes),
    );
    let embedded: EmbeddedMemories = { writes: [], failures: new Map() };
    if (pending.length > 0) {
      try {
        embedded = await this.step.embed(models, pending);
      } catch (error) {
        await this.recordFailures(new Map(pending.map((m) => [m.id, errorText(error)])), options);
        throw error;
      }
    }
    const hashes = new Map(
      pending.filter((m) => !embedded.failures.has(m.id)).map((m) => [m.id, m.inputHash.toString('hex')]),
    );
    if (hashes.size + unsettled.length + deleted.length > 0) {
      await this.tx.asSystem((tx) =>
        this.write(tx, {
          ids: [...hashes.keys(), ...unsettled, ...deleted],
          hashes,
          embedded,
          outcomes,
          refill,
        }),
      );
    }
    if (embedded.failures.size > 0) {
      await this.recordFailures(embedded.failures, options);
      const [first] = embedded.failures.values();
      throw new Error(
        `${embedded.failures.size} of ${requests.length} memories could not be embedded: ${first}`,
      );
    }
    return outcomes;
  }

  /**
   * Step 1: what needs embedding, and which states only need settling (indexed already, but a
   * later edit was reverted; or pending for a soft-deleted memory). Memories written before index
   * states existed get one here.
   */
  private async read(
    tx: Tx,
    requests: readonly IndexRequest[],
    outcomes: IndexMemoriesResult,
  ): Promise<{
    models: EmbeddingModel[];
    pending: MemoryToEmbed[];
    unsettled: string[];
    deleted: string[];
    refill: Set<string>;
  }> {
    const seen = new Set<string>();
    const found = (await this.states.readIndexable(tx, requests))
      // A memory named twice (a payload not built by the relay) is embedded and upserted once.
      .filter((m) => !seen.has(m.id) && seen.add(m.id));
    const deleted = found.filter((m) => m.deleted && m.status === 'pending').map((m) => m.id);
    const live = found
      .filter((m) => !m.deleted)
      .map((memory) => {
        const text = indexInput(memory);
        return { memory, text, inputHash: indexInputDigest(text) };
      });
    await this.states.ensure(
      tx,
      live
        .filter((i) => i.memory.status === null)
        .map((i) => ({ memoryId: i.memory.id, hash: i.inputHash.toString('hex') })),
    );
    const refill = new Set<string>();
    if (live.length === 0) return { models: [], pending: [], unsettled: [], deleted, refill };
    const models = await this.models.listWritable(tx);
    const stored = await this.embeddings.storedHashes(
      tx,
      live.map((i) => i.memory.id),
    );
    const pending: MemoryToEmbed[] = [];
    const unsettled: string[] = [];
    for (const item of live) {
      const hash = item.inputHash.toString('hex');
      const vectors = stored.get(item.memory.id) ?? new Map<string, string>();
      // Indexed with this text, but a model written to since has no vector of it: a memory
      // deleted while a reindex passed it by, then restored.
      const missing = models.some((model) => vectors.get(model.id) !== hash);
      if (item.memory.indexedHash !== hash || missing) {
        if (item.memory.indexedHash === hash) refill.add(item.memory.id);
        pending.push({ id: item.memory.id, text: item.text, inputHash: item.inputHash, stored: vectors });
      } else {
        outcomes.set(item.memory.id, 'already-indexed');
        if (item.memory.status !== 'indexed') unsettled.push(item.memory.id);
      }
    }
    return { models: pending.length > 0 ? models : [], pending, unsettled, deleted, refill };
  }

  /**
   * Step 3: under the memories' and states' locks, decides each memory again from what it holds
   * now, writes the vectors still current (one statement per model) and settles the states: a
   * memory deleted by now leaves `pending` for `skipped`. A restore committing meanwhile waits for
   * the state lock, then marks it pending again.
   */
  private async write(
    tx: Tx,
    batch: {
      ids: readonly string[];
      /** Indexed with their text already, embedded for a model that had no vector of it. */
      refill: ReadonlySet<string>;
      hashes: ReadonlyMap<string, string>;
      embedded: EmbeddedMemories;
      outcomes: IndexMemoriesResult;
    },
  ): Promise<void> {
    const current = new Map((await this.states.lockForIndexing(tx, batch.ids)).map((m) => [m.id, m]));
    const indexed: IndexedInput[] = [];
    const upToDate: string[] = [];
    const skipped: string[] = [];
    for (const id of batch.ids) {
      const memory = current.get(id);
      const embeddedHash = batch.hashes.get(id);
      const outcome = memory ? decide(memory, embeddedHash, batch.refill.has(id)) : 'memory-gone';
      batch.outcomes.set(id, outcome);
      if (outcome === 'indexed' && embeddedHash) indexed.push({ memoryId: id, hash: embeddedHash });
      if (outcome === 'already-indexed' && memory?.status !== 'indexed') upToDate.push(id);
      if (memory?.deleted && memory.status === 'pending') skipped.push(id);
    }
    const fresh = new Set(indexed.map((i) => i.memoryId));
    for (const { model, rows } of batch.embedded.writes) {
      await this.embeddings.upsertMany(
        tx,
        model,
        rows.filter((r) => fresh.has(r.memoryId)),
      );
    }
    await this.states.markIndexed(tx, indexed);
    await this.states.markUpToDate(tx, upToDate);
    await this.states.markSkipped(tx, skipped);
  }

  /** Records the attempt in a fresh transaction (the work's own may have rolled back); the queue retries. */
  private async recordFailures(
    failures: ReadonlyMap<string, string>,
    options: IndexMemoryOptions,
  ): Promise<void> {
    if (failures.size === 0) return;
    await this.tx
      .asSystem((tx) => this.states.recordFailures(tx, failures, options.finalAttempt ?? false))
      .catch((error: unknown) =>
        this.logger.warn(
          `could not record index failures for ${failures.size} memories: ${errorText(error)}`,
        ),
      );
  }
}

/** What a locked memory needs, given the input hash its vectors were computed from (if any). */
function decide(
  memory: IndexableMemory,
  embeddedHash: string | undefined,
  refill: boolean,
): IndexMemoryOutcome {
  if (memory.deleted) return 'memory-gone';
  const currentHash = indexInputHash(memory);
  // Indexed by another job meanwhile: nothing to write, unless this one filled in a model's vector.
  if (memory.indexedHash === currentHash && !(refill && embeddedHash === currentHash))
    return 'already-indexed';
  return embeddedHash === currentHash ? 'indexed' : 'changed';
}
