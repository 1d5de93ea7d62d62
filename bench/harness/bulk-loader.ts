import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { type Embedder } from '@app/embeddings';
import {
  indexInput as embeddingInput,
  indexInputDigest as embeddingInputHash,
  indexInputHash,
} from '@app/jobs';
import { contentHash } from '@app/memories';
import { toVectorLiteral } from '@app/embeddings';
import { TenantVectorIndexRepository, type SessionQuery } from '@app/embeddings/testing';
import { loadConfig } from '@app/config';
import type { Tx } from '@app/persistence';
import type { ServiceOptions } from './bench-options';
import type { GeneratedMemory } from '../corpus/memory-generator';

export interface ActiveModel {
  readonly id: string;
  readonly dimensions: number;
}

export interface BulkLoadTimings {
  readonly rows: number;
  /** Time in the model. */
  readonly embedMs: number;
  /** Time of the insert transactions, which overlap the next batch's embedding. */
  readonly insertMs: number;
}

const BATCH = 1000;

/**
 * Writes memories straight into the tables, in the state the API plus one successful index job
 * leaves them: the memory row (with its normalised content hash), `memory_index_state` indexed
 * with the index-input hash, and a `memory_embeddings` row for the active model computed by the
 * real model from the same embedding input the job uses. Storing 100k memories one request at a
 * time would take most of the benchmark's budget and measure nothing it reports.
 */
export async function bulkLoadMemories(
  pg: Client,
  options: {
    memories: Iterable<GeneratedMemory>;
    principals: readonly Principal[];
    embedder: Embedder;
    model: ActiveModel;
    /** `team` for a team's shared knowledge; the column default (`private`) otherwise. */
    visibility?: 'private' | 'team';
    onBatch?: (rowsSoFar: number) => void;
  },
): Promise<BulkLoadTimings> {
  let rows = 0;
  let embedMs = 0;
  let insertMs = 0;
  let batch: GeneratedMemory[] = [];
  // The model embeds the next batch in this process while Postgres writes the previous one.
  let inserting: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (batch.length === 0) return;
    const current = batch;
    batch = [];
    const texts = current.map(embeddingInput);
    const started = performance.now();
    const vectors = await options.embedder.embed(texts);
    embedMs += performance.now() - started;
    await inserting;
    const issued = performance.now();
    inserting = insertBatch(pg, options, current, texts, vectors).then(() => {
      insertMs += performance.now() - issued;
      rows += current.length;
      options.onBatch?.(rows);
    });
    // A failed insert must not go unobserved while the next batch embeds.
    inserting.catch(() => undefined);
  };
  for (const memory of options.memories) {
    batch.push(memory);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  await inserting;
  return { rows, embedMs, insertMs };
}

async function insertBatch(
  pg: Client,
  { principals, model, visibility = 'private' }: Parameters<typeof bulkLoadMemories>[1],
  batch: readonly GeneratedMemory[],
  texts: readonly string[],
  vectors: readonly Float32Array[],
): Promise<void> {
  const owner = (m: GeneratedMemory) => principals[m.owner];
  await pg.query('BEGIN');
  try {
    const { rows } = await pg.query<{ id: string; owner_id: string; hash: string }>(
      `INSERT INTO memories (tenant_id, owner_id, content, category, tags, expanded_keywords, importance, project, content_hash, visibility)
       SELECT t, o, c, cat, ARRAY(SELECT jsonb_array_elements_text(tags::jsonb)), kw, imp, p, decode(h, 'hex'), $10
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::text[], $9::text[])
              AS x(t, o, c, cat, tags, kw, imp, p, h)
       RETURNING id::text AS id, owner_id::text AS owner_id, encode(content_hash, 'hex') AS hash`,
      [
        batch.map((m) => owner(m).tenantId),
        batch.map((m) => owner(m).userId),
        batch.map((m) => m.content),
        batch.map((m) => m.category),
        batch.map((m) => JSON.stringify(m.tags)),
        batch.map((m) => m.expandedKeywords),
        batch.map((m) => m.importance),
        batch.map((m) => m.project),
        batch.map((m) => contentHash(m.content).toString('hex')),
        visibility,
      ],
    );
    // RETURNING order is not guaranteed; (owner, content hash) is unique among live rows.
    const idOf = new Map(rows.map((r) => [`${r.owner_id}/${r.hash}`, r.id]));
    const ids = batch.map((m) => {
      const id = idOf.get(`${owner(m).userId}/${contentHash(m.content).toString('hex')}`);
      if (!id) throw new Error(`bulk insert lost a row for user ${owner(m).username}`);
      return id;
    });
    const indexHashes = batch.map((m) => indexInputHash(m));
    await pg.query(
      `INSERT INTO memory_index_state (memory_id, tenant_id, owner_id, status, wanted_hash, indexed_hash, attempts, times_indexed, indexed_at)
       SELECT id, t, o, 'indexed', decode(h, 'hex'), decode(h, 'hex'), 1, 1, now()
         FROM unnest($1::bigint[], $2::uuid[], $3::uuid[], $4::text[]) AS x(id, t, o, h)`,
      [ids, batch.map((m) => owner(m).tenantId), batch.map((m) => owner(m).userId), indexHashes],
    );
    await pg.query(
      `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
       SELECT id, $1, t, o, v::vector, decode(h, 'hex')
         FROM unnest($2::bigint[], $3::uuid[], $4::uuid[], $5::text[], $6::text[]) AS x(id, t, o, v, h)`,
      [
        model.id,
        ids,
        batch.map((m) => owner(m).tenantId),
        batch.map((m) => owner(m).userId),
        vectors.map((v) => toVectorLiteral(v, model.dimensions)),
        texts.map((t) => embeddingInputHash(t).toString('hex')),
      ],
    );
    await pg.query('COMMIT');
  } catch (error) {
    await pg.query('ROLLBACK');
    throw error;
  }
}

/**
 * Runs `work` with the HNSW indexes on memory_embeddings dropped, then rebuilds them from their
 * own definitions: building a graph once over all rows is much faster than inserting 100k rows
 * into it one by one, and the result is the same index the application created.
 */
export async function withVectorIndexesRebuilt<T>(
  pg: Client,
  work: () => Promise<T>,
  services: Pick<ServiceOptions, 'env'>,
): Promise<{ result: T; rebuildMs: number; indexes: number }> {
  const { rows } = await pg.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = 'memory_embeddings' AND indexdef ILIKE '%USING hnsw%'`,
  );
  for (const index of rows) await pg.query(`DROP INDEX ${quoteIdent(index.indexname)}`);
  const result = await work();
  // Vacuum now, while there is no HNSW index to scan: otherwise autovacuum's insert threshold
  // fires during the measurements and its pass over the graph competes for the two cores.
  await pg.query('VACUUM (ANALYZE) memories, memory_embeddings, memory_index_state');
  const started = performance.now();
  // Session settings of the bench's own connection only; the server configuration is untouched.
  await pg.query(`SET maintenance_work_mem = '1GB'`);
  for (const index of rows) await pg.query(index.indexdef);
  // The shared indexes' definitions held no tenant's own index: build those the worker's
  // `embeddings.tenant-indexes` run would, with the same statements (in the same session settings).
  const tenantIndexes = await buildTenantVectorIndexes(pg, tenantIndexMinRowsOf(services));
  await pg.query(`RESET maintenance_work_mem`);
  return { result, rebuildMs: performance.now() - started, indexes: rows.length + tenantIndexes };
}

/** VECTOR_TENANT_INDEX_MIN_ROWS as the services under test read it (`--env` overrides included). */
export function tenantIndexMinRowsOf(services: Pick<ServiceOptions, 'env'>): number {
  return loadConfig({ ...services.env }).embeddings.tenantIndexMinRows;
}

/**
 * Every tenant index the maintenance run would build now, built, and the tenant holding most of a
 * model marked on its shared index, as that run does; answers how many indexes were built.
 */
async function buildTenantVectorIndexes(pg: Client, minRows: number): Promise<number> {
  if (minRows <= 0) return 0;
  const repository = new TenantVectorIndexRepository();
  const tx: Tx = {
    afterCommit: () => undefined,
    query: async (sql, params) => {
      const result = await pg.query(sql, params ? [...params] : undefined);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
  };
  const query: SessionQuery = async <Row>(sql: string, params?: readonly unknown[]) =>
    (await pg.query(sql, params ? [...params] : undefined)).rows as Row[];
  const sized = await repository.sized(tx, minRows);
  for (const model of new Set(sized.map((t) => t.modelId))) {
    const dominant = sized.find((t) => t.dominant && t.modelId === model);
    await repository.markDominant(tx, model, dominant?.tenantId ?? null);
  }
  const wanted = sized.filter((t) => !t.dominant);
  for (const index of wanted) await buildBesideTheServices(repository, tx, query, index);
  return wanted.length;
}

/**
 * The API and worker under test run the same maintenance on their own schedule, and two
 * `CREATE INDEX CONCURRENTLY` of one index can deadlock. The one that loses here waits for the
 * services' build to finish: done when the index is valid, built again when it is gone or was
 * left invalid.
 */
async function buildBesideTheServices(
  repository: TenantVectorIndexRepository,
  tx: Tx,
  query: SessionQuery,
  index: Parameters<TenantVectorIndexRepository['build']>[1],
): Promise<void> {
  const ours = (all: Awaited<ReturnType<TenantVectorIndexRepository['list']>>) =>
    all.find((i) => i.modelId === index.modelId && i.tenantId === index.tenantId.toLowerCase());
  for (let attempt = 1; ; attempt += 1) {
    try {
      await repository.build(query, index);
      if (ours(await repository.list(tx))?.valid) return;
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt >= 5) throw error;
    }
    // Wait (up to 10 minutes) for a build in progress elsewhere to finish.
    for (let waited = 0; waited < 600; waited += 1) {
      const found = ours(await repository.list(tx));
      if (found?.valid) return;
      const building = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_progress_create_index WHERE relid = 'memory_embeddings'::regclass`,
      );
      if (found === undefined || building[0].n === 0) {
        if (found !== undefined) await repository.drop(query, found.name);
        break;
      }
      await new Promise((done) => setTimeout(done, 1_000));
    }
    if (attempt >= 5)
      throw new Error(`tenant vector index for ${index.tenantId} not built after ${attempt} tries`);
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function activeModel(pg: Client): Promise<ActiveModel> {
  const { rows } = await pg.query<{ id: string; dimensions: number }>(
    `SELECT id, dimensions FROM embedding_models WHERE status = 'active'`,
  );
  if (!rows[0]) throw new Error('no active embedding model: did the API register EMBEDDING_MODEL at boot?');
  return rows[0];
}

/**
 * Drops generated memories whose owner already holds the same content: the API would answer with
 * the existing memory (already embedded), which would time as "searchable instantly".
 */
export async function withoutExisting(
  pg: Client,
  principals: readonly Principal[],
  memories: readonly GeneratedMemory[],
): Promise<GeneratedMemory[]> {
  const key = (ownerId: string, hashHex: string) => `${ownerId}/${hashHex}`;
  const hashes = memories.map((m) => contentHash(m.content).toString('hex'));
  const { rows } = await pg.query<{ owner_id: string; hash: string }>(
    `SELECT owner_id::text AS owner_id, encode(content_hash, 'hex') AS hash FROM memories
      WHERE deleted_at IS NULL AND content_hash = ANY($1::bytea[])`,
    [hashes.map((h) => Buffer.from(h, 'hex'))],
  );
  const existing = new Set(rows.map((r) => key(r.owner_id, r.hash)));
  return memories.filter((m, i) => !existing.has(key(principals[m.owner].userId, hashes[i])));
}
