import { type TenantScope } from '@app/persistence';
import type { RecallFilter } from '../domain/recall-filter';
import { servedMemorySql } from '@app/memories';
import { assertModelId, toVectorLiteral } from '@app/embeddings';
import { isAdminScope, recallWhere } from './recall-filter.sql';
import { countBranches, embeddingBranches } from './visible-candidates.sql';

/**
 * `exact`: distance to every candidate, sorted (no index; exact by construction).
 * `hnsw`: the model's partial HNSW index with iterative scan, filters applied as it walks.
 */
export type VectorPlan = 'exact' | 'hnsw';

/** Whose rows a query may return: recall sees every visible row (visibleMemorySql); dedup compares own rows only. */
export type VectorReach = 'visible' | 'own';

export interface VectorQuerySpec {
  readonly modelId: string;
  readonly dimensions: number;
  readonly vector: ArrayLike<number>;
  readonly k: number;
  readonly filters?: RecallFilter;
  readonly excludeId?: number;
  /**
   * Exact plan only: size the caller's set as the bounded count does (each branch stopping at this
   * many rows) and return the count in `candidates` (one row at least), so that one statement both
   * sizes the set and, when it is below the cap, answers exactly.
   */
  readonly sizeCap?: number;
}

export interface BuiltQuery {
  readonly sql: string;
  readonly params: unknown[];
}

/** The dimension is written into SQL (casts cannot take parameters), so it must be a plain integer. */
export function dimensionsOf(dimensions: number): number {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) {
    throw new RangeError(`dimensions must be an integer between 1 and 2000, got ${dimensions}`);
  }
  return dimensions;
}

/**
 * One k-nearest query over the caller's live memories for one model.
 *
 * The HNSW form orders by exactly the partial index's expression (`embedding::vector(D)`) and
 * names the model, so the planner can use that index; tenant, visibility and filter conditions
 * are checked on each row the index yields (iterative scan keeps it going until k rows pass).
 * The memories check is a scalar subquery on purpose: Postgres does not turn it into a join, so
 * each candidate costs one primary-key probe instead of a join against the caller's whole set.
 * The exact form gathers the candidates in a MATERIALIZED CTE from disjoint branches, each through
 * its own index (see visible-candidates.sql.ts), so the ORDER BY sits above the CTE where no index
 * can serve it. With `sizeCap` it also sizes the set (SizedGathering).
 */
export function buildNearestQuery(
  plan: VectorPlan,
  reach: VectorReach,
  scope: TenantScope,
  spec: VectorQuerySpec,
): BuiltQuery {
  const d = dimensionsOf(spec.dimensions);
  if (plan === 'hnsw') return buildWalkQuery(reach, scope, spec, d);
  const head: unknown[] = [spec.modelId, toVectorLiteral(spec.vector, d), spec.k];
  const where = recallWhere(scope, spec.filters ?? {}, head.length + 1);
  const params = [...head, ...where.params];
  const tenant = `$${head.length + 1}`;
  const user = `$${head.length + 2}`;
  const excluded: string[] = [];
  if (spec.excludeId !== undefined) {
    params.push(spec.excludeId);
    excluded.push(`m.id <> $${params.length}`);
  }
  const query = `$2::vector(${d})`;

  const sized =
    spec.sizeCap === undefined
      ? undefined
      : { cap: `$${params.push(spec.sizeCap)}`, wanted: where.narrowSql };
  const branches = embeddingBranches(
    { reach, admin: isAdminScope(scope) },
    {
      model: '$1',
      tenant,
      user,
      filters: [sized ? servedMemorySql('m') : where.filtersSql, ...excluded].join(' AND '),
      visible: [sized ? where.readableSql : where.sql, ...excluded].join(' AND '),
    },
    sized,
  );
  const gathered = `WITH candidates AS MATERIALIZED (
            ${branches.join('\n            UNION ALL\n            ')}
          )`;
  if (!sized) {
    return {
      sql: `${gathered}
          SELECT memory_id, embedding::vector(${d}) <=> ${query} AS distance
            FROM candidates
           ORDER BY distance, memory_id
           LIMIT $3`,
      params,
    };
  }
  // One row at least, so the count comes back even when nothing is wanted; no distance is
  // computed once the set is found large.
  return {
    sql: `${gathered}, sized AS (SELECT count(*) AS n FROM candidates)
          SELECT s.n AS candidates, h.memory_id, h.distance
            FROM sized s
            LEFT JOIN LATERAL (
              SELECT memory_id, embedding::vector(${d}) <=> ${query} AS distance
                FROM candidates
               WHERE wanted AND embedding IS NOT NULL AND s.n < ${sized.cap}
               ORDER BY distance, memory_id
               LIMIT $3) h ON true`,
    params,
  };
}

/**
 * The HNSW form. The model and the tenant are written into the statement (the model id checked
 * against its pattern, the tenant id a UUID), so that a plan made once per connection, without the
 * values, still matches the partial indexes by their predicates: the model's shared index
 * (`WHERE model_id = …`) and the tenant's own (`… AND tenant_id = …`), which the planner prefers
 * for its size. Everything else is a parameter.
 */
function buildWalkQuery(
  reach: VectorReach,
  scope: TenantScope,
  spec: VectorQuerySpec,
  d: number,
): BuiltQuery {
  assertModelId(spec.modelId);
  if (!UUID.test(scope.tenantId)) throw new RangeError('tenant id must be a UUID');
  const head: unknown[] = [toVectorLiteral(spec.vector, d), spec.k];
  const where = recallWhere(scope, spec.filters ?? {}, head.length + 1);
  const params = [...head, ...where.params];
  const user = `$${head.length + 2}`;
  const clauses = [where.sql];
  if (reach === 'own') clauses.push(`m.owner_id = ${user}`);
  if (spec.excludeId !== undefined) clauses.push(`m.id <> $${params.push(spec.excludeId)}`);
  const query = `$1::vector(${d})`;
  const indexed = `e.embedding::vector(${d})`;
  return {
    sql: `SELECT e.memory_id, ${indexed} <=> ${query} AS distance
            FROM memory_embeddings e
           WHERE e.model_id = '${spec.modelId}' AND e.tenant_id = '${scope.tenantId.toLowerCase()}'::uuid${
             reach === 'own' ? ` AND e.owner_id = ${user}` : ''
           }
             AND (SELECT true FROM memories m WHERE m.id = e.memory_id AND ${clauses.join(' AND ')})
           ORDER BY ${indexed} <=> ${query}
           LIMIT $2`,
    params,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Bounded count of the caller's candidate rows for a model: each branch stops at `cap`, so sizing
 * a large caller's set costs no more than the threshold per branch (branches as in the exact plan).
 */
export function buildCandidateCountQuery(
  reach: VectorReach,
  scope: TenantScope,
  modelId: string,
  cap: number,
): BuiltQuery {
  const admin = reach === 'visible' && isAdminScope(scope);
  // Only referenced parameters may be sent: an admin's count does not name the user.
  const params = admin ? [modelId, scope.tenantId, cap] : [modelId, scope.tenantId, scope.userId, cap];
  const branches = countBranches(
    { reach, admin },
    { model: '$1', tenant: '$2', user: '$3', filters: servedMemorySql('m') },
  );
  const counts = branches.map((branch) => `(SELECT count(*) FROM (${branch} LIMIT $${params.length}) b)`);
  return { sql: `SELECT (${counts.join(' + ')})::int AS n`, params };
}

export interface NearDuplicateSpec {
  readonly modelId: string;
  readonly dimensions: number;
  /** Minimum cosine similarity (1 − cosine distance) for a pair. */
  readonly threshold: number;
  readonly limit: number;
  /** How many of the caller's most recent memories are compared with the rest. */
  readonly scanCap: number;
}

/** Neighbours looked at per scanned memory, so a cluster of near-copies yields all its pairs. */
const NEIGHBOURS_PER_MEMORY = 3;

/**
 * Near-duplicate pairs among the caller's own live memories: each of the `scanCap` most recent
 * ones is joined LATERAL with its nearest neighbours. Exact over a materialised copy of the
 * owner's rows when that set is small; through the HNSW index (one probe per scanned memory)
 * otherwise. Pairs come out once, smaller id first, most similar first.
 */
export function buildNearDuplicatesQuery(
  plan: VectorPlan,
  scope: TenantScope,
  spec: NearDuplicateSpec,
): BuiltQuery {
  const d = dimensionsOf(spec.dimensions);
  const params = [spec.modelId, scope.tenantId, scope.userId, spec.scanCap, spec.threshold, spec.limit];
  const ownLive = `e.model_id = $1 AND e.tenant_id = $2 AND e.owner_id = $3
                   AND m.tenant_id = $2 AND m.owner_id = $3 AND m.deleted_at IS NULL`;
  // As in buildNearestQuery: the owner's rows come from the embeddings index, the memory row is
  // probed by primary key only (robust to statistics that predate a bulk load).
  const ownByKey = `e.model_id = $1 AND e.tenant_id = $2 AND e.owner_id = $3 AND m.deleted_at IS NULL`;
  const neighbours =
    plan === 'exact'
      ? `SELECT o.memory_id, o.v <=> r.v AS distance
           FROM own o
          WHERE o.memory_id <> r.memory_id
          ORDER BY distance
          LIMIT ${NEIGHBOURS_PER_MEMORY}`
      : `SELECT e.memory_id, e.embedding::vector(${d}) <=> r.v AS distance
           FROM memory_embeddings e
          WHERE e.model_id = $1 AND e.tenant_id = $2 AND e.owner_id = $3 AND e.memory_id <> r.memory_id
            AND (SELECT true FROM memories m
                  WHERE m.id = e.memory_id AND m.tenant_id = $2 AND m.owner_id = $3 AND m.deleted_at IS NULL)
          ORDER BY e.embedding::vector(${d}) <=> r.v
          LIMIT ${NEIGHBOURS_PER_MEMORY}`;
  const sources =
    plan === 'exact'
      ? `own AS MATERIALIZED (
           SELECT e.memory_id, e.embedding::vector(${d}) AS v, m.created_at
             FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id
            WHERE ${ownByKey}
         ),
         recent AS (SELECT memory_id, v FROM own ORDER BY created_at DESC, memory_id DESC LIMIT $4)`
      : `recent AS MATERIALIZED (
           SELECT e.memory_id, e.embedding::vector(${d}) AS v
             FROM memories m JOIN memory_embeddings e ON e.memory_id = m.id
            WHERE ${ownLive}
            ORDER BY m.created_at DESC, m.id DESC
            LIMIT $4
         )`;
  return {
    sql: `WITH ${sources},
          pairs AS (
            SELECT least(r.memory_id, n.memory_id) AS first_id,
                   greatest(r.memory_id, n.memory_id) AS second_id,
                   1 - n.distance AS similarity
              FROM recent r
              CROSS JOIN LATERAL (${neighbours}) n
          )
          SELECT first_id::text AS first_id, second_id::text AS second_id, max(similarity) AS similarity
            FROM pairs
           WHERE similarity >= $5
           GROUP BY first_id, second_id
           ORDER BY similarity DESC, first_id, second_id
           LIMIT $6`,
    params,
  };
}
