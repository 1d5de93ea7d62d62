import { Inject, Injectable } from '@nestjs/common';
import { QueryEmbedder } from '@app/embeddings';
import { type TenantScope, type Tx } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';
import type { PreparedQuery, VectorHit, VectorRecall } from '../ports/vector-recall.port';
import { MemoryVectorRepository } from './memory-vector.repository';

/**
 * The vector leg of recall: the query is embedded by the embeddings lib (active read model,
 * cached) and searched by MemoryVectorRepository inside the caller's transaction.
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
