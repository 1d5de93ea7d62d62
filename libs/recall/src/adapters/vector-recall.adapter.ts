import { Inject, Injectable } from '@nestjs/common';
import { QueryEmbedder } from '@app/embeddings';
import { type TenantScope, type Tx } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';
import type { NearDuplicatePair, PreparedQuery, VectorHit, VectorRecall } from '../ports/vector-recall.port';
import { MemoryVectorRepository } from './memory-vector.repository';

/**
 * Recall's vectors: queries are embedded by the embeddings lib (active read model, cached) and
 * searched by MemoryVectorRepository inside the caller's transaction.
 */
@Injectable()
export class VectorRecallAdapter implements VectorRecall {
  constructor(
    @Inject(QueryEmbedder) private readonly queries: QueryEmbedder,
    @Inject(MemoryVectorRepository) private readonly vectors: MemoryVectorRepository,
  ) {}

  prepare(text: string): Promise<PreparedQuery | null> {
    return this.queries.embed(text);
  }

  async activeModel(): Promise<{ id: string; dimensions: number } | null> {
    const model = await this.queries.activeModel();
    return model ? { id: model.id, dimensions: model.dimensions } : null;
  }

  async nearestOwn(scope: TenantScope, tx: Tx, query: PreparedQuery, k: number): Promise<VectorHit[]> {
    const hits = await this.vectors.nearest(scope, tx, {
      modelId: query.modelId,
      dimensions: query.dimensions,
      vector: query.vector,
      k,
    });
    return hits.filter((h) => Number.isFinite(h.distance));
  }

  nearDuplicatePairs(
    scope: TenantScope,
    tx: Tx,
    input: { model: { id: string; dimensions: number }; threshold: number; limit: number; scanCap: number },
  ): Promise<NearDuplicatePair[]> {
    return this.vectors.nearDuplicatePairs(scope, tx, {
      modelId: input.model.id,
      dimensions: input.model.dimensions,
      threshold: input.threshold,
      limit: input.limit,
      scanCap: input.scanCap,
    });
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
}
