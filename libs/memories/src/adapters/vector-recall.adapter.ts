import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner, type TenantScope, type Tx } from '@app/persistence';
import type { RecallFilter } from '../domain/memory';
import type { EmbeddingModel } from '../domain/embedding-model';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from '../ports/embedder.port';
import type { PreparedQuery, VectorHit, VectorRecall } from '../ports/vector-recall.port';
import { QueryEmbeddingCache } from './embedding/query-embedding-cache';
import { EmbeddingModelRepository } from './embedding-model.repository';
import { MemoryVectorRepository } from './memory-vector.repository';

/** How long the active read model is remembered; a model switch reaches every replica within it. */
const ACTIVE_MODEL_TTL_MS = 5_000;

/**
 * The vector leg of recall: the query is embedded with the *active* read model (which differs from
 * EMBEDDING_MODEL while a reindex fills a new one), cached, and searched by MemoryVectorRepository.
 */
@Injectable()
export class VectorRecallAdapter implements VectorRecall {
  private active: { model: EmbeddingModel | null; until: number } | undefined;

  constructor(
    private readonly tx: TransactionRunner,
    private readonly models: EmbeddingModelRepository,
    private readonly vectors: MemoryVectorRepository,
    private readonly cache: QueryEmbeddingCache,
    @Inject(EMBEDDER_PROVIDER) private readonly embedders: EmbedderProvider,
  ) {}

  async prepare(text: string): Promise<PreparedQuery | null> {
    const model = await this.activeModel();
    if (!model) return null;
    const embedder = await this.embedders.get(model.id);
    const vector = await this.cache.embed(embedder, text);
    // A text with no word the model knows embeds to the zero vector, whose cosine distance is
    // undefined: skip the vector leg and let full-text search answer.
    if (vector.every((x) => x === 0)) return null;
    return { modelId: model.id, dimensions: model.dimensions, vector };
  }

  async search(
    scope: TenantScope,
    tx: Tx,
    query: PreparedQuery,
    input: { k: number; filter: RecallFilter },
  ): Promise<VectorHit[]> {
    const hits = await this.vectors.search(scope, tx, {
      modelId: query.modelId,
      dimensions: query.dimensions,
      vector: query.vector,
      k: input.k,
      filters: input.filter,
    });
    // Memories whose text embedded to the zero vector have no direction (NaN distance).
    return hits.filter((h) => Number.isFinite(h.distance));
  }

  private async activeModel(): Promise<EmbeddingModel | null> {
    const now = Date.now();
    if (this.active && this.active.until > now) return this.active.model;
    const model = await this.tx.asSystem((tx) => this.models.findActive(tx));
    this.active = { model, until: now + ACTIVE_MODEL_TTL_MS };
    return model;
  }
}
