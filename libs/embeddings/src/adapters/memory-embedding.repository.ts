import { Injectable } from '@nestjs/common';
import { type Tx } from '@app/persistence';
import { toVectorLiteral } from '../domain/vector-literal';

/** A live memory as a reindex batch sees it, with what is stored for the target model. */
export interface ReindexCandidate {
  readonly id: string;
  readonly content: string;
  readonly expandedKeywords: string;
  readonly tags: readonly string[];
  /** Row version (xmin) at read time: the write is skipped if the memory changed since. */
  readonly version: string;
  /** Hex input hash stored for the target model, null when it has no row yet. */
  readonly storedHash: string | null;
}

export interface EmbeddingWrite {
  readonly memoryId: string;
  readonly vector: ArrayLike<number>;
  readonly inputHash: Buffer;
}

const UPSERT_TAIL = `ON CONFLICT (memory_id, model_id, tenant_id) DO UPDATE
    SET embedding = EXCLUDED.embedding, input_hash = EXCLUDED.input_hash
  WHERE memory_embeddings.input_hash IS DISTINCT FROM EXCLUDED.input_hash`;

/**
 * Writes and reindex reads for `memory_embeddings`. Upserts leave a row alone when its input
 * hash is unchanged: rewriting an HNSW-indexed row re-inserts it into the graph.
 */
@Injectable()
export class MemoryEmbeddingRepository {
  /** memory id → (model id → hex input hash) of the stored rows (index job, system transaction). */
  async storedHashes(tx: Tx, memoryIds: readonly string[]): Promise<Map<string, Map<string, string>>> {
    const { rows } = await tx.query<{ memory_id: string; model_id: string; input_hash: string }>(
      `SELECT memory_id::text AS memory_id, model_id, encode(input_hash, 'hex') AS input_hash
         FROM memory_embeddings WHERE memory_id = ANY($1::bigint[])`,
      [memoryIds],
    );
    const stored = new Map<string, Map<string, string>>();
    for (const r of rows)
      stored.set(r.memory_id, (stored.get(r.memory_id) ?? new Map()).set(r.model_id, r.input_hash));
    return stored;
  }

  /**
   * One model's vectors for many memories in one statement (index job, system transaction; tenant
   * and owner come from the memory row). The caller holds the memories' index state locks and has
   * checked that each vector was computed from the text the memory holds now.
   */
  async upsertMany(
    tx: Tx,
    model: { id: string; dimensions: number },
    writes: readonly EmbeddingWrite[],
  ): Promise<void> {
    if (writes.length === 0) return;
    await tx.query(
      `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
       SELECT m.id, $1, m.tenant_id, m.owner_id, v.embedding::vector, v.input_hash
         FROM unnest($2::bigint[], $3::text[], $4::bytea[]) AS v(memory_id, embedding, input_hash)
         JOIN memories m ON m.id = v.memory_id
       ${UPSERT_TAIL}`,
      [
        model.id,
        writes.map((w) => w.memoryId),
        writes.map((w) => toVectorLiteral(w.vector, model.dimensions)),
        writes.map((w) => w.inputHash),
      ],
    );
  }

  // ---- Reindex (system transactions: every tenant's memories) ----

  /** Live memories in all tenants: the reindex job's total. */
  async countLive(tx: Tx): Promise<number> {
    const { rows } = await tx.query<{ n: string }>(
      `SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * The next live memories after `afterId` in id order (keyset, so a resumed job continues
   * exactly where it stopped); `onlyMissing` restricts to those without a row for the model.
   */
  async readBatch(
    tx: Tx,
    input: { modelId: string; afterId: string; limit: number; onlyMissing: boolean },
  ): Promise<ReindexCandidate[]> {
    const { rows } = await tx.query<{
      id: string;
      content: string;
      expanded_keywords: string;
      tags: string[];
      version: string;
      stored_hash: string | null;
    }>(
      `SELECT m.id, m.content, m.expanded_keywords, m.tags, m.xmin::text AS version,
              encode(e.input_hash, 'hex') AS stored_hash
         FROM memories m
         LEFT JOIN memory_embeddings e ON e.memory_id = m.id AND e.model_id = $1
        WHERE m.id > $2 AND m.deleted_at IS NULL AND ($4::boolean IS FALSE OR e.memory_id IS NULL)
        ORDER BY m.id
        LIMIT $3`,
      [input.modelId, input.afterId, input.limit, input.onlyMissing],
    );
    return rows.map((r) => ({
      id: r.id,
      content: r.content,
      expandedKeywords: r.expanded_keywords,
      tags: r.tags,
      version: r.version,
      storedHash: r.stored_hash,
    }));
  }

  /**
   * Stores vectors computed outside the transaction, but only for memories still live and
   * unchanged since they were read (same xmin). A memory edited meanwhile has its own index job
   * queued, which embeds the new text with every writable model, this one included.
   */
  async upsertIfUnchanged(
    tx: Tx,
    model: { id: string; dimensions: number },
    writes: readonly (EmbeddingWrite & { version: string })[],
  ): Promise<number> {
    if (writes.length === 0) return 0;
    const result = await tx.query(
      `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
       SELECT m.id, $1, m.tenant_id, m.owner_id, v.embedding::vector, v.input_hash
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bytea[]) AS v(memory_id, version, embedding, input_hash)
         JOIN memories m ON m.id = v.memory_id AND m.xmin::text = v.version AND m.deleted_at IS NULL
       ${UPSERT_TAIL}`,
      [
        model.id,
        writes.map((w) => w.memoryId),
        writes.map((w) => w.version),
        writes.map((w) => toVectorLiteral(w.vector, model.dimensions)),
        writes.map((w) => w.inputHash),
      ],
    );
    return result.rowCount;
  }

  /** Live memories without a row for the model (what a switch would leave text-only). */
  async countLiveMissing(tx: Tx, modelId: string): Promise<number> {
    const { rows } = await tx.query<{ n: string }>(
      `SELECT count(*) AS n FROM memories m
        WHERE m.deleted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.memory_id = m.id AND e.model_id = $1)`,
      [modelId],
    );
    return Number(rows[0]?.n ?? 0);
  }
}
