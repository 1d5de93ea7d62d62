import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { EmbeddingModelRepository } from '../adapters/embedding-model.repository';
import { assertModelSpec, assertSameDimensions } from '../domain/embedding-model';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from '../ports/embedder.port';

/**
 * `activated`: the registry had no read model, so EMBEDDING_MODEL became it.
 * `active` / `filling` / `retired`: already registered with that status (nothing changed).
 * `not-registered`: another model is the read model; switching is a reindex, not a restart.
 */
export type ConfiguredModelOutcome = 'activated' | 'active' | 'filling' | 'retired' | 'not-registered';

export interface ConfiguredModelRegistration {
  readonly modelId: string;
  readonly dimensions: number;
  readonly outcome: ConfiguredModelOutcome;
  /** The read model after registration (null only if none could be made active). */
  readonly activeModelId: string | null;
}

/**
 * Runs at startup of the API and the worker. Loads EMBEDDING_MODEL (a model that cannot be
 * loaded fails the boot with the adapter's message, which names the path) and makes it the read
 * model when none is active, creating its partial HNSW index. Replicas starting together
 * serialise on the registry's advisory lock, so exactly one registers and the rest find it.
 */
@Injectable()
export class RegisterConfiguredModelUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(EMBEDDER_PROVIDER) private readonly embedders: EmbedderProvider,
    @Inject(EmbeddingModelRepository) private readonly models: EmbeddingModelRepository,
  ) {}

  async execute(): Promise<ConfiguredModelRegistration> {
    const modelId = this.embedders.defaultModelId;
    const { dimensions } = await this.embedders.get(modelId);
    assertModelSpec(modelId, dimensions);
    return this.tx.asSystem(async (tx) => {
      await this.models.lockRegistry(tx);
      const existing = await this.models.find(tx, modelId);
      const active = await this.models.findActive(tx);
      if (existing) {
        assertSameDimensions(existing, dimensions);
        // Recreate the index if an operator dropped it; a no-op otherwise.
        if (existing.status !== 'retired') await this.models.ensureIndex(tx, existing);
        return { modelId, dimensions, outcome: existing.status, activeModelId: active?.id ?? null };
      }
      if (active) return { modelId, dimensions, outcome: 'not-registered', activeModelId: active.id };
      await this.models.insert(tx, { id: modelId, dimensions, status: 'active' });
      await this.models.ensureIndex(tx, { id: modelId, dimensions });
      return { modelId, dimensions, outcome: 'activated', activeModelId: modelId };
    });
  }
}
