import { type TenantScope, type Tx } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';

/** A query embedded with the active read model, ready for the vector leg. */
export interface PreparedQuery {
  readonly modelId: string;
  readonly dimensions: number;
  readonly vector: Float32Array;
}

export interface VectorHit {
  readonly memoryId: number;
  /** Cosine distance (0 = same direction). */
  readonly distance: number;
}

/** Two of the caller's memories whose vectors are nearly the same. */
export interface NearDuplicatePair {
  /** The smaller memory id of the pair. */
  readonly firstId: number;
  readonly secondId: number;
  readonly similarity: number;
}

/**
 * Recall's vectors, for every use case that needs them (recall, check, duplicates). `prepare`
 * embeds outside any transaction (no connection is held while the model runs) and answers null
 * when no model is active yet; the searches run inside the caller's RLS transaction.
 */
export interface VectorRecall {
  prepare(text: string): Promise<PreparedQuery | null>;
  /** The active read model, or null before one is registered. */
  activeModel(): Promise<{ readonly id: string; readonly dimensions: number } | null>;
  /** The memories the caller may read nearest `query`, within `filter`. */
  search(
    scope: TenantScope,
    tx: Tx,
    query: PreparedQuery,
    input: { k: number; filter: RecallFilter },
  ): Promise<VectorHit[]>;
  /** The caller's own memories nearest `query` (a teammate's memory is theirs to update). */
  nearestOwn(scope: TenantScope, tx: Tx, query: PreparedQuery, k: number): Promise<VectorHit[]>;
  /** Near-duplicate pairs among the caller's own memories, most similar first (bounded scan). */
  nearDuplicatePairs(
    scope: TenantScope,
    tx: Tx,
    input: { model: { id: string; dimensions: number }; threshold: number; limit: number; scanCap: number },
  ): Promise<NearDuplicatePair[]>;
}

export const VECTOR_RECALL = Symbol('VECTOR_RECALL');
