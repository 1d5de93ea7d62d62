import { Injectable } from '@nestjs/common';
import type { Tx } from '@app/persistence';
import {
  assertModelSpec,
  dominantTenantComment,
  hnswIndexName,
  TENANT_HNSW_INDEX_PREFIX,
  tenantHnswIndexName,
} from '../domain/embedding-model';

/** A tenant with this share of a model's embeddings or more gets no index of its own. */
export const TENANT_INDEX_MAX_SHARE = 0.8;

/** A tenant's own HNSW index as the catalog holds it. */
export interface TenantVectorIndex {
  readonly name: string;
  /** False while a concurrent build runs, and for good after one failed (it must be dropped). */
  readonly valid: boolean;
  /** From the index's comment; null for an index whose build never got that far. */
  readonly modelId: string | null;
  readonly tenantId: string | null;
}

/** A (model, tenant) pair with enough embeddings for an index of its own. */
export interface TenantVectorIndexWanted {
  readonly modelId: string;
  readonly dimensions: number;
  readonly tenantId: string;
  readonly rows: number;
}

/** One statement on a maintenance session (autocommit, schema owner). */
export type SessionQuery = <Row>(sql: string, params?: readonly unknown[]) => Promise<Row[]>;

/**
 * The catalog side of per-tenant HNSW indexes: which exist, which tenants have grown enough to
 * want one, and the DDL. Index names are `tenantHnswIndexName(model, tenant)`; the comment on each
 * index records the two ids as JSON so a later run knows what it indexes. DDL takes no parameters,
 * so ids are checked (model id pattern, UUID) before they are written into a statement.
 */
@Injectable()
export class TenantVectorIndexRepository {
  async list(tx: Tx): Promise<TenantVectorIndex[]> {
    const { rows } = await tx.query<{ name: string; valid: boolean; comment: string | null }>(
      `SELECT c.relname AS name, i.indisvalid AS valid, obj_description(c.oid, 'pg_class') AS comment
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = 'memory_embeddings'::regclass AND starts_with(c.relname, $1)
        ORDER BY c.relname`,
      [TENANT_HNSW_INDEX_PREFIX],
    );
    return rows.map((r) => {
      const ids = parseComment(r.comment);
      return { name: r.name, valid: r.valid, modelId: ids?.model ?? null, tenantId: ids?.tenant ?? null };
    });
  }

  /**
   * Every (writable model, tenant) with at least `minRows` embeddings, largest first — except a
   * tenant holding TENANT_INDEX_MAX_SHARE or more of the model's rows: the shared index is then
   * nearly its own already (a one-team installation), and a second one would double the cost of
   * every insert for little.
   */
  async wanted(tx: Tx, minRows: number): Promise<TenantVectorIndexWanted[]> {
    return (await this.sized(tx, minRows)).filter((t) => !t.dominant);
  }

  /**
   * Every (writable model, tenant) with at least `minRows` embeddings, largest first, and whether it
   * holds TENANT_INDEX_MAX_SHARE or more of the model's rows (at most one tenant per model can).
   */
  async sized(tx: Tx, minRows: number): Promise<(TenantVectorIndexWanted & { dominant: boolean })[]> {
    const { rows } = await tx.query<{
      model_id: string;
      dimensions: number;
      tenant_id: string;
      n: string;
      dominant: boolean;
    }>(
      `SELECT model_id, dimensions, tenant_id, n, n >= $2 * total AS dominant FROM (
         SELECT e.model_id, m.dimensions, e.tenant_id, count(*) AS n,
                sum(count(*)) OVER (PARTITION BY e.model_id) AS total
           FROM memory_embeddings e JOIN embedding_models m ON m.id = e.model_id
          WHERE m.status IN ('active', 'filling')
          GROUP BY e.model_id, m.dimensions, e.tenant_id) per_tenant
        WHERE n >= $1
        ORDER BY n DESC`,
      [minRows, TENANT_INDEX_MAX_SHARE],
    );
    return rows.map((r) => ({
      modelId: r.model_id,
      dimensions: r.dimensions,
      tenantId: r.tenant_id,
      rows: Number(r.n),
      dominant: r.dominant,
    }));
  }

  /**
   * Records on the model's shared index which tenant, if any, holds most of its rows (its comment:
   * `dominantTenantComment`), so that recall walks it for that tenant with a shorter candidate list.
   * Answers whether the comment changed.
   */
  async markDominant(tx: Tx, modelId: string, tenantId: string | null): Promise<boolean> {
    const name = hnswIndexName(modelId);
    const { rows } = await tx.query<{ comment: string | null; present: boolean }>(
      `SELECT to_regclass($1) IS NOT NULL AS present, obj_description(to_regclass($1), 'pg_class') AS comment`,
      [name],
    );
    const wanted = tenantId === null ? null : dominantTenantComment(tenantId);
    if (!rows[0]?.present || (rows[0].comment ?? null) === wanted) return false;
    // DDL takes no parameters; the comment is built from a UUID only (checked there).
    await tx.query(`COMMENT ON INDEX ${name} IS ${wanted === null ? 'NULL' : `'${wanted}'`}`);
    return true;
  }

  /** Embeddings a tenant holds of a model (whether its index still pays for itself). */
  async rows(tx: Tx, modelId: string, tenantId: string): Promise<number> {
    const { rows } = await tx.query<{ n: string }>(
      `SELECT count(*) AS n FROM memory_embeddings WHERE model_id = $1 AND tenant_id = $2`,
      [modelId, tenantId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Builds the tenant's index without blocking writes (CONCURRENTLY: two table scans, waits for
   * running transactions), then records what it indexes in its comment. Outside any transaction.
   */
  async build(query: SessionQuery, index: Omit<TenantVectorIndexWanted, 'rows'>): Promise<string> {
    assertModelSpec(index.modelId, index.dimensions);
    const name = tenantHnswIndexName(index.modelId, index.tenantId);
    const model = `'${index.modelId}'`;
    const tenant = `'${index.tenantId.toLowerCase()}'`;
    await query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON memory_embeddings
         USING hnsw ((embedding::vector(${index.dimensions})) vector_cosine_ops)
         WHERE model_id = ${model} AND tenant_id = ${tenant}`,
    );
    const comment = JSON.stringify({ model: index.modelId, tenant: index.tenantId.toLowerCase() });
    await query(`COMMENT ON INDEX ${name} IS '${comment}'`);
    return name;
  }

  /** Drops an index this repository named (a failed build, a retired model, a shrunk tenant). */
  async drop(query: SessionQuery, name: string): Promise<void> {
    if (!/^[a-z0-9_]+$/.test(name) || !name.startsWith(TENANT_HNSW_INDEX_PREFIX))
      throw new RangeError(`not a tenant vector index: ${name}`);
    await query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  }
}

function parseComment(comment: string | null): { model: string; tenant: string } | null {
  if (!comment) return null;
  try {
    const parsed = JSON.parse(comment) as { model?: unknown; tenant?: unknown };
    return typeof parsed.model === 'string' && typeof parsed.tenant === 'string'
      ? { model: parsed.model, tenant: parsed.tenant }
      : null;
  } catch {
    return null;
  }
}
