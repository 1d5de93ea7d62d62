import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { EmbeddingModelRepository } from '../adapters/embedding-model.repository';
import { QueryEmbeddingCache } from '../adapters/embedding/query-embedding-cache';
import type { EmbeddingModel } from '../domain/embedding-model';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from '../ports/embedder.port';

/** How long the active read model is remembered; a model switch reaches every replica within it. */
const ACTIVE_MODEL_TTL_MS = 5_000;

/** A query embedded with the active read model, ready for a vector search. */
export interface EmbeddedQuery {
  readonly modelId: string;
  readonly dimensions: number;
  readonly vector: Float32Array;
}

/**
 * Embeds search queries with the *active* read model (which differs from EMBEDDING_MODEL while a
 * reindex fills a new one), through the query cache. Runs outside any transaction: no connection
 * is held while the model runs.
 */
@Injectable()
export class QueryEmbedder {
  private active: { model: EmbeddingModel | null; until: number } | undefined;

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(EmbeddingModelRepository) private readonly models: EmbeddingModelRepository,
    @Inject(QueryEmbeddingCache) private readonly cache: QueryEmbeddingCache,
    @Inject(EMBEDDER_PROVIDER) private readonly embedders: EmbedderProvider,
  ) {}

  /** The read model, or null before any model is registered. */
  async activeModel(): Promise<EmbeddingModel | null> {
    const now = Date.now();
    if (this.active && this.active.until > now) return this.active.model;
    const model = await this.tx.asSystem((tx) => this.models.findActive(tx));
    this.active = { model, until: now + ACTIVE_MODEL_TTL_MS };
    return model;
  }

  /**
   * The query's vector, or null when no model is active or the text has no word the model knows
   * (the zero vector has no direction: cosine distance is undefined).
   */
  async embed(text: string): Promise<EmbeddedQuery | null> {
    const model = await this.activeModel();
    if (!model) return null;
    const embedder = await this.embedders.get(model.id);
    const vector = await this.cache.embed(embedder, text);
    if (vector.every((x) => x === 0)) return null;
    return { modelId: model.id, dimensions: model.dimensions, vector };
  }
}
