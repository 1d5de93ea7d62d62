import { Inject, Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import { type AdminJob } from '@app/jobs';
import { AdminJobRepository } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { actingUserId, assertAdmin, AuditWriter, tenantScopeOf, type Actor } from '@app/tenancy';
import { EmbeddingModelRepository } from '../adapters/embedding-model.repository';
import { assertModelId, assertModelSpec, assertSameDimensions } from '../domain/embedding-model';
import { EmbeddingError, EmbeddingErrorCode } from '../domain/embedding.errors';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from '../ports/embedder.port';

export const REINDEX_JOB_KIND = 'embeddings.reindex';

export interface StartReindexInput {
  readonly model: string;
}

/**
 * `POST /api/admin/embeddings/reindex` and `cli embeddings reindex`: registers the model as
 * `filling` (creating its partial HNSW index), records a `jobs` row and queues the job through
 * the outbox, all in one transaction. The model is loaded here first, so a model that cannot be
 * loaded is refused at once instead of failing in the worker.
 *
 * The job re-embeds every tenant's memories: in a multi-tenant install only operators should
 * hold the admin scope. Asking again for the same model while its job is unfinished returns that
 * job and queues it once more (a stalled job resumes from its checkpoint); a reindex to a
 * different model must wait until the current one has finished.
 */
@Injectable()
export class StartReindexUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(EMBEDDER_PROVIDER) private readonly embedders: EmbedderProvider,
    @Inject(EmbeddingModelRepository) private readonly models: EmbeddingModelRepository,
    @Inject(AdminJobRepository) private readonly jobs: AdminJobRepository,
    @Inject(OutboxWriter) private readonly outbox: OutboxWriter,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(actor: Actor, input: StartReindexInput): Promise<AdminJob> {
    assertAdmin(actor);
    assertModelId(input.model);
    const dimensions = await this.loadableDimensions(input.model);
    assertModelSpec(input.model, dimensions);
    const scope = tenantScopeOf(actor);
    return this.tx.asSystem(async (tx) => {
      await this.models.lockRegistry(tx);
      const open = await this.jobs.findOpen(tx, REINDEX_JOB_KIND);
      const same = open.find((j) => j.params.model === input.model && j.tenantId === actor.tenantId);
      const other = open.find((j) => j !== same);
      if (other) {
        throw new EmbeddingError(
          EmbeddingErrorCode.ReindexInProgress,
          `A reindex to "${String(other.params.model)}" is ${other.status}; wait until it has finished`,
        );
      }
      const existing = await this.models.find(tx, input.model);
      if (existing) assertSameDimensions(existing, dimensions);
      if (!existing) await this.models.insert(tx, { id: input.model, dimensions, status: 'filling' });
      else if (existing.status === 'retired') await this.models.markFilling(tx, input.model);
      await this.models.ensureIndex(tx, { id: input.model, dimensions });

      const job =
        same ??
        (await this.jobs.insert(scope, tx, {
          kind: REINDEX_JOB_KIND,
          params: { model: input.model },
          createdBy: actingUserId(actor),
        }));
      await this.outbox.enqueue(scope, tx, {
        name: 'embeddings.reindex',
        payload: { tenantId: actor.tenantId, jobId: job.id, model: input.model, requestId: actor.requestId },
        requestId: actor.requestId,
      });
      await this.audit.record(actor, tx, {
        action: same ? 'embeddings.reindex.resume' : 'embeddings.reindex',
        targetType: 'embedding_model',
        targetId: input.model,
        details: { job_id: job.id, dimensions, previous_status: existing?.status ?? null },
      });
      return job;
    });
  }

  /** A model this process cannot load is the caller's mistake here (422), not an outage (503). */
  private async loadableDimensions(modelId: string): Promise<number> {
    try {
      return (await this.embedders.get(modelId)).dimensions;
    } catch (error) {
      if (error instanceof EmbeddingError && error.code === EmbeddingErrorCode.ModelUnavailable) {
        throw new EmbeddingError(EmbeddingErrorCode.InvalidModel, error.message);
      }
      throw error;
    }
  }
}
