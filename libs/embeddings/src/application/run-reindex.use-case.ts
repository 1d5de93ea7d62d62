import { Inject, Injectable, Logger } from '@nestjs/common';
import { HandlesJob, isFinalAttempt, type JobContext, type JobPayload } from '@app/jobs';
import { isFinished, type AdminJob, type AdminJobProgress } from '@app/jobs';
import { failAdminJob, runAdminJobAttempt } from '@app/jobs';
import { AdminJobRepository } from '@app/jobs';
import { analyzeTables, TransactionRunner } from '@app/persistence';
import { EmbeddingModelRepository } from '../adapters/embedding-model.repository';
import { MemoryEmbeddingRepository, type ReindexCandidate } from '../adapters/memory-embedding.repository';
import { indexInput, indexInputDigest } from '@app/jobs';
import { assertSameDimensions, type EmbeddingModel } from '../domain/embedding-model';
import { EMBEDDER_PROVIDER, type Embedder, type EmbedderProvider } from '../ports/embedder.port';

export interface ReindexOptions {
  /** Memories read, embedded and written per step (progress is saved after each). */
  readonly batchSize: number;
}

export const REINDEX_OPTIONS = Symbol('REINDEX_OPTIONS');

export type ReindexOutcome = 'succeeded' | 'failed' | 'already-finished' | 'job-missing';

/**
 * Resume point: `scan` walks every live memory by id; `sweep` then picks up memories that still
 * have no row (written behind the scan, changed mid-batch, or failed in the scan).
 */
interface Checkpoint {
  readonly phase: 'scan' | 'sweep';
  readonly afterId: string;
}

const START: Checkpoint = { phase: 'scan', afterId: '0' };

function checkpointOf(job: AdminJob): Checkpoint {
  const c = job.checkpoint as Partial<Checkpoint> | null;
  return c && (c.phase === 'scan' || c.phase === 'sweep') && typeof c.afterId === 'string'
    ? { phase: c.phase, afterId: c.afterId }
    : START;
}

const sameCheckpoint = (a: Checkpoint, b: Checkpoint) => a.phase === b.phase && a.afterId === b.afterId;

/**
 * `embeddings.reindex`: embeds every live memory of every tenant (it runs as system) with the
 * target model, then switches the read model in one transaction (filling → active, the old
 * active → retired), so recall answers from the old model until the new one is complete.
 *
 * Resumable and idempotent: the position is a keyset checkpoint saved with the progress after
 * each batch, so a re-delivered job continues where the last run stopped; memories whose stored
 * input hash already matches are skipped, so a second run embeds nothing. Two runs of the same
 * job never both advance: a batch commits only if the checkpoint is still the one it started from.
 */
@Injectable()
export class RunReindexUseCase {
  readonly logger = new Logger('Reindex');

  constructor(
    @Inject(TransactionRunner) readonly tx: TransactionRunner,
    @Inject(EMBEDDER_PROVIDER) private readonly embedders: EmbedderProvider,
    @Inject(EmbeddingModelRepository) private readonly models: EmbeddingModelRepository,
    @Inject(MemoryEmbeddingRepository) private readonly embeddings: MemoryEmbeddingRepository,
    @Inject(AdminJobRepository) readonly jobs: AdminJobRepository,
    @Inject(REINDEX_OPTIONS) private readonly options: ReindexOptions,
  ) {}

  /** `embeddings.reindex`: system-wide and resumable. */
  @HandlesJob('embeddings.reindex')
  async onJob(payload: JobPayload<'embeddings.reindex'>, job: JobContext): Promise<void> {
    await this.execute(payload, { finalAttempt: isFinalAttempt(job) });
  }

  async execute(
    payload: JobPayload<'embeddings.reindex'>,
    options: { finalAttempt?: boolean } = {},
  ): Promise<ReindexOutcome> {
    return runAdminJobAttempt(
      this,
      { id: payload.jobId, label: 'reindex', finalAttempt: options.finalAttempt },
      () => this.run(payload),
    );
  }

  private async run(payload: JobPayload<'embeddings.reindex'>): Promise<ReindexOutcome> {
    const job = await this.tx.asSystem(async (tx) => {
      const found = await this.jobs.lock(tx, payload.jobId);
      if (!found || isFinished(found)) return found;
      const total = found.progress.total ?? (await this.embeddings.countLive(tx));
      await this.jobs.markRunning(tx, found.id, total);
      return { ...found, progress: { ...found.progress, total } };
    });
    if (!job) return 'job-missing';
    if (isFinished(job)) return 'already-finished';

    const model = await this.tx.asSystem((tx) => this.models.find(tx, payload.model));
    if (!model || model.status === 'retired') {
      await this.fail(
        job.id,
        `model "${payload.model}" is not registered for filling (status: ${model?.status ?? 'none'})`,
      );
      return 'failed';
    }
    const embedder = await this.embedders.get(model.id);
    assertSameDimensions(model, embedder.dimensions);

    let checkpoint = checkpointOf(job);
    let progress = job.progress;
    for (;;) {
      const batch = await this.tx.asSystem((tx) =>
        this.embeddings.readBatch(tx, {
          modelId: model.id,
          afterId: checkpoint.afterId,
          limit: this.options.batchSize,
          onlyMissing: checkpoint.phase === 'sweep',
        }),
      );
      if (batch.length === 0 && checkpoint.phase === 'sweep') break;
      const next: Checkpoint =
        batch.length === 0
          ? { phase: 'sweep', afterId: '0' }
          : { ...checkpoint, afterId: batch[batch.length - 1].id };
      const { writes, failures } = await this.embedBatch(model, embedder, batch);
      const counted: AdminJobProgress = {
        total: progress.total,
        done: progress.done + batch.length - failures,
        // Scan failures get another chance in the sweep; only the sweep's are final.
        failed: progress.failed + (checkpoint.phase === 'sweep' ? failures : 0),
      };
      const from = checkpoint;
      const saved = await this.tx.asSystem(async (tx) => {
        const current = await this.jobs.lock(tx, job.id);
        if (!current || isFinished(current) || !sameCheckpoint(checkpointOf(current), from)) return current;
        await this.embeddings.upsertIfUnchanged(tx, model, writes);
        await this.jobs.saveProgress(tx, job.id, counted, next);
        return null;
      });
      if (saved === null) {
        checkpoint = next;
        progress = counted;
        continue;
      }
      // Another run of this job moved on (or finished it): continue from where it is now.
      if (!saved || isFinished(saved)) return 'already-finished';
      checkpoint = checkpointOf(saved);
      progress = saved.progress;
    }
    return this.complete(job.id, model, progress);
  }

  /** Embeds the batch's changed inputs; a failing batch is retried item by item to isolate bad ones. */
  private async embedBatch(
    model: EmbeddingModel,
    embedder: Embedder,
    batch: readonly ReindexCandidate[],
  ): Promise<{
    writes: { memoryId: string; version: string; vector: Float32Array; inputHash: Buffer }[];
    failures: number;
  }> {
    const pending = batch
      .map((memory) => {
        const text = indexInput(memory);
        return { memory, text, inputHash: indexInputDigest(text) };
      })
      .filter((p) => p.memory.storedHash !== p.inputHash.toString('hex'));
    if (pending.length === 0) return { writes: [], failures: 0 };
    let vectors: (Float32Array | null)[];
    try {
      vectors = await embedder.embed(pending.map((p) => p.text));
    } catch (error) {
      this.logger.warn(
        `batch of ${pending.length} failed with "${model.id}", one by one now: ${errorText(error)}`,
      );
      vectors = [];
      for (const p of pending) vectors.push(await embedOrNull(embedder, p.text));
      // Nothing embedded at all: the model, not a memory, is the problem. Fail this run; the queue
      // retries later from the last checkpoint instead of marching through every memory.
      if (vectors.every((v) => v === null)) throw error;
    }
    const writes = pending.flatMap((p, i) => {
      const vector = vectors[i];
      return vector
        ? [{ memoryId: p.memory.id, version: p.memory.version, vector, inputHash: p.inputHash }]
        : [];
    });
    return { writes, failures: pending.length - writes.length };
  }

  /** Switches the read model, or records why it was not switched. */
  private async complete(
    jobId: string,
    model: EmbeddingModel,
    progress: AdminJobProgress,
  ): Promise<ReindexOutcome> {
    return this.tx.asSystem(async (tx) => {
      await this.models.lockRegistry(tx);
      const job = await this.jobs.lock(tx, jobId);
      if (!job || isFinished(job)) return 'already-finished';
      const missing = await this.embeddings.countLiveMissing(tx, model.id);
      const total = Math.max(progress.total ?? 0, progress.done + progress.failed);
      await this.jobs.saveProgress(tx, jobId, { ...progress, total }, job.checkpoint);
      if (progress.failed > 0) {
        await this.jobs.finish(tx, jobId, {
          status: 'failed',
          error:
            `${progress.failed} memories could not be embedded with "${model.id}"; the read model was not switched. ` +
            `Run the reindex again to retry them.`,
        });
        return 'failed';
      }
      const current = await this.models.find(tx, model.id);
      if (current?.status === 'filling') await this.models.activate(tx, model.id);
      // Memories written during this last step are embedded by their own index jobs.
      if (missing > 0)
        this.logger.log(`switched to "${model.id}" with ${missing} memories still queued for embedding`);
      await this.jobs.finish(tx, jobId, { status: 'succeeded', error: null });
      // The new model's vectors are a bulk load the statistics have not seen: plan on fresh ones.
      await analyzeTables(tx, ['memory_embeddings']);
      return 'succeeded';
    });
  }

  private async fail(jobId: string, error: string): Promise<void> {
    await failAdminJob(this, jobId, error);
  }
}

async function embedOrNull(embedder: Embedder, text: string): Promise<Float32Array | null> {
  try {
    const [vector] = await embedder.embed([text]);
    return vector;
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
