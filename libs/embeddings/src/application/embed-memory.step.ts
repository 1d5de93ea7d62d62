import { Inject, Injectable, Logger } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import { EmbeddingModelRepository } from '../adapters/embedding-model.repository';
import { MemoryEmbeddingRepository } from '../adapters/memory-embedding.repository';
import type { IndexableMemory } from '../adapters/memory-index-state.repository';
import { indexInput, indexInputDigest } from '@app/jobs';
import { assertSameDimensions, type EmbeddingModel } from '../domain/embedding-model';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from '../ports/embedder.port';

/**
 * The embedding part of `memory.index`: runs in the owner's transaction under the index state
 * lock, once per new index input. Embeds the memory's (redacted) content, keywords and tags with
 * every writable model, the read model and any model a reindex is filling, so a model switch
 * never misses memories written while it fills. Concurrent jobs share batches through the
 * embedder's micro-batcher.
 */
@Injectable()
export class EmbedMemoryStep {
  private readonly logger = new Logger('EmbedMemory');

  constructor(
    @Inject(EMBEDDER_PROVIDER) private readonly embedders: EmbedderProvider,
    @Inject(EmbeddingModelRepository) private readonly models: EmbeddingModelRepository,
    @Inject(MemoryEmbeddingRepository) private readonly embeddings: MemoryEmbeddingRepository,
  ) {}

  async run(scope: TenantScope, tx: Tx, memory: IndexableMemory): Promise<void> {
    const models = await this.models.listWritable(tx);
    // Boot registers EMBEDDING_MODEL before any job runs; an empty registry is a broken install,
    // and failing (then retrying) beats marking the memory indexed without a vector.
    if (models.length === 0) throw new Error('no embedding model is registered yet');
    const text = indexInput(memory);
    const inputHash = indexInputDigest(text);
    const stored = await this.embeddings.storedHashes(scope, tx, memory.id);
    for (const model of models) {
      if (stored.get(model.id) === inputHash.toString('hex')) continue;
      const vector = await this.embedWith(model, text);
      if (vector) await this.embeddings.upsert(scope, tx, model, { memoryId: memory.id, vector, inputHash });
    }
  }

  /**
   * The read model must succeed (the job retries otherwise). A model being filled is best
   * effort: the reindex's final pass embeds whatever is still missing before it switches.
   */
  private async embedWith(model: EmbeddingModel, text: string): Promise<Float32Array | null> {
    try {
      const embedder = await this.embedders.get(model.id);
      assertSameDimensions(model, embedder.dimensions);
      const [vector] = await embedder.embed([text]);
      return vector;
    } catch (error) {
      if (model.status === 'active') throw error;
      this.logger.warn(
        `could not embed with filling model "${model.id}" (the reindex will catch up): ${error instanceof Error ? error.message : String(error)}`,
      );
      return null;
    }
  }
}
