import { createHash } from 'node:crypto';
import { EmbeddingError, EmbeddingErrorCode } from './embedding.errors';

/**
 * `active`: the read model recall searches (exactly one once any model is registered).
 * `filling`: being populated by a reindex job; new and edited memories are embedded with it too.
 * `retired`: replaced; its rows stay until an operator removes them.
 */
export type EmbeddingModelStatus = 'filling' | 'active' | 'retired';

export interface EmbeddingModel {
  readonly id: string;
  readonly dimensions: number;
  readonly status: EmbeddingModelStatus;
  readonly createdAt: string;
  readonly activatedAt: string | null;
}

/** Same rule as EMBEDDING_MODEL (a folder under MODELS_DIR or a hub id); no quotes, so safe in DDL. */
export const EMBEDDING_MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;

/** pgvector's HNSW index accepts `vector` columns of at most 2,000 dimensions. */
export const MAX_INDEXED_DIMENSIONS = 2000;

export function assertModelId(id: string): void {
  if (!EMBEDDING_MODEL_ID_PATTERN.test(id)) {
    throw new EmbeddingError(
      EmbeddingErrorCode.InvalidModel,
      `model "${id.slice(0, 140)}" is not a valid model id (letters, digits, '.', '_', '-', '/'; at most 128 characters)`,
    );
  }
}

export function assertModelSpec(id: string, dimensions: number): void {
  assertModelId(id);
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_INDEXED_DIMENSIONS) {
    throw new EmbeddingError(
      EmbeddingErrorCode.InvalidModel,
      `model "${id}" has ${dimensions} dimensions; HNSW indexes support 1 to ${MAX_INDEXED_DIMENSIONS}`,
    );
  }
}

/**
 * Name of a model's partial HNSW index. A readable slug plus a hash of the exact id, so ids that
 * slug alike ("a/b" and "a-b") never share an index; at most 62 bytes, below Postgres' 63-byte limit.
 */
export function hnswIndexName(modelId: string): string {
  assertModelId(modelId);
  const slug = modelId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 26);
  const digest = createHash('sha256').update(modelId, 'utf8').digest('hex').slice(0, 12);
  return `memory_embeddings_hnsw_${slug}_${digest}`;
}

/** Every tenant's own HNSW index starts with this (the rest is a digest of the model and the tenant). */
export const TENANT_HNSW_INDEX_PREFIX = 'memory_embeddings_hnsw_t_';

/**
 * Name of a tenant's own partial HNSW index for a model (`WHERE model_id = … AND tenant_id = …`):
 * the prefix and a digest of both ids, 49 bytes. Recall looks it up by this name; nothing of the
 * tenant can be read from it.
 */
export function tenantHnswIndexName(modelId: string, tenantId: string): string {
  assertModelId(modelId);
  if (!/^[0-9a-f-]{36}$/i.test(tenantId)) throw new RangeError('tenant id must be a UUID');
  const digest = createHash('sha256')
    .update(`${modelId}\u0000${tenantId.toLowerCase()}`, 'utf8')
    .digest('hex');
  return `${TENANT_HNSW_INDEX_PREFIX}${digest.slice(0, 24)}`;
}

/**
 * The comment on a model's shared index that names the tenant holding most of its rows (see
 * MaintainTenantIndexesUseCase); recall compares it with its caller's tenant.
 */
export function dominantTenantComment(tenantId: string): string {
  if (!/^[0-9a-f-]{36}$/i.test(tenantId)) throw new RangeError('tenant id must be a UUID');
  return JSON.stringify({ dominant: tenantId.toLowerCase() });
}

/** The model must produce vectors of the size it was registered with; the index casts to it. */
export function assertSameDimensions(
  model: Pick<EmbeddingModel, 'id' | 'dimensions'>,
  produced: number,
): void {
  if (model.dimensions !== produced) {
    throw new EmbeddingError(
      EmbeddingErrorCode.DimensionsMismatch,
      `model "${model.id}" is registered with ${model.dimensions} dimensions but the loaded model produces ${produced}; ` +
        `a changed model needs a new id (reindex to it)`,
    );
  }
}
