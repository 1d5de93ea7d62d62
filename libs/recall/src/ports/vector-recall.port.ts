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

/**
 * The vector leg of recall. `prepare` embeds outside any transaction (no connection is held while
 * the model runs) and answers null when no model is active yet; `search` runs inside the caller's
 * RLS transaction.
 */
export interface VectorRecall {
  prepare(text: string): Promise<PreparedQuery | null>;
  search(
    scope: TenantScope,
    tx: Tx,
    query: PreparedQuery,
    input: { k: number; filter: RecallFilter },
  ): Promise<VectorHit[]>;
}

export const VECTOR_RECALL = Symbol('VECTOR_RECALL');
