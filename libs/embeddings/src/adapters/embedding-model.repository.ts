import { Injectable } from '@nestjs/common';
import { type Tx } from '@app/persistence';
import {
  assertModelSpec,
  hnswIndexName,
  type EmbeddingModel,
  type EmbeddingModelStatus,
} from '../domain/embedding-model';

/** Arbitrary constant for the registry's advisory lock: "embd" as an int. */
export const EMBEDDING_REGISTRY_LOCK_KEY = 0x656d6264;

interface ModelRow {
  id: string;
  dimensions: number;
  status: EmbeddingModelStatus;
  created_at: string;
  activated_at: string | null;
}

const COLUMNS = `id, dimensions, status,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS created_at,
  to_char(activated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS activated_at`;

const toModel = (row: ModelRow): EmbeddingModel => ({
  id: row.id,
  dimensions: row.dimensions,
  status: row.status,
  createdAt: row.created_at,
  activatedAt: row.activated_at,
});

/**
 * SQL for the install-wide `embedding_models` registry and its per-model partial HNSW indexes.
 * The registry belongs to no tenant: reads work in any transaction, changes need a system
 * transaction (the schema owner creates indexes) and should hold `lockRegistry` so replicas
 * starting together, and concurrent reindex requests, never race.
 */
@Injectable()
export class EmbeddingModelRepository {
  /** Serialises registry changes until the transaction ends. */
  async lockRegistry(tx: Tx): Promise<void> {
    await tx.query(`SELECT pg_advisory_xact_lock($1)`, [EMBEDDING_REGISTRY_LOCK_KEY]);
  }

  async find(tx: Tx, id: string): Promise<EmbeddingModel | null> {
    const { rows } = await tx.query<ModelRow>(`SELECT ${COLUMNS} FROM embedding_models WHERE id = $1`, [id]);
    return rows[0] ? toModel(rows[0]) : null;
  }

  /** The read model recall searches, or null before any model is registered. */
  async findActive(tx: Tx): Promise<EmbeddingModel | null> {
    const { rows } = await tx.query<ModelRow>(
      `SELECT ${COLUMNS} FROM embedding_models WHERE status = 'active'`,
    );
    return rows[0] ? toModel(rows[0]) : null;
  }

  /** Models new and edited memories are embedded with: the active one first, then any being filled. */
  async listWritable(tx: Tx): Promise<EmbeddingModel[]> {
    const { rows } = await tx.query<ModelRow>(
      `SELECT ${COLUMNS} FROM embedding_models WHERE status IN ('active', 'filling')
        ORDER BY status = 'active' DESC, id`,
    );
    return rows.map(toModel);
  }

  async insert(
    tx: Tx,
    model: { id: string; dimensions: number; status: 'active' | 'filling' },
  ): Promise<void> {
    assertModelSpec(model.id, model.dimensions);
    await tx.query(
      `INSERT INTO embedding_models (id, dimensions, status, activated_at)
       VALUES ($1, $2, $3, CASE WHEN $3 = 'active' THEN now() END)`,
      [model.id, model.dimensions, model.status],
    );
  }

  /** A retired model comes back as `filling` when an operator reindexes to it again. */
  async markFilling(tx: Tx, id: string): Promise<void> {
    await tx.query(`UPDATE embedding_models SET status = 'filling' WHERE id = $1 AND status = 'retired'`, [
      id,
    ]);
  }

  async markRetired(tx: Tx, id: string): Promise<void> {
    await tx.query(`UPDATE embedding_models SET status = 'retired' WHERE id = $1 AND status = 'filling'`, [
      id,
    ]);
  }

  /**
   * Makes `id` the read model and retires the previous one, in the caller's transaction so
   * readers see either the old or the new model, never none (the unique index allows one active).
   */
  async activate(tx: Tx, id: string): Promise<void> {
    await tx.query(`UPDATE embedding_models SET status = 'retired' WHERE status = 'active' AND id <> $1`, [
      id,
    ]);
    await tx.query(
      `UPDATE embedding_models SET status = 'active', activated_at = now() WHERE id = $1 AND status <> 'active'`,
      [id],
    );
  }

  /**
   * Creates the model's partial HNSW index unless it exists; returns whether it was created.
   * DDL cannot take parameters, so the id (checked against a pattern without quotes) and the
   * dimension (an integer in range) are validated before being written into the statement.
   * Plain CREATE INDEX holds a SHARE lock on memory_embeddings until commit (writes wait, reads
   * do not); a newly registered model has no rows yet, so the build is a single table scan.
   */
  async ensureIndex(tx: Tx, model: { id: string; dimensions: number }): Promise<boolean> {
    assertModelSpec(model.id, model.dimensions);
    const name = hnswIndexName(model.id);
    const { rows } = await tx.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [
      name,
    ]);
    if (rows[0]?.present) return false;
    const literal = `'${model.id.replace(/'/g, "''")}'`;
    await tx.query(
      `CREATE INDEX IF NOT EXISTS ${name} ON memory_embeddings
         USING hnsw ((embedding::vector(${model.dimensions})) vector_cosine_ops)
         WHERE model_id = ${literal}`,
    );
    return true;
  }

  /** Whether the model's index exists (diagnostics and tests). */
  async hasIndex(tx: Tx, id: string): Promise<boolean> {
    const { rows } = await tx.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [
      hnswIndexName(id),
    ]);
    return rows[0]?.present ?? false;
  }
}
