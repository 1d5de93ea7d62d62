import { insertThen, isoTimestamp, type SqlStatement, type TenantScope, type Tx } from '@app/persistence';
import type {
  Memory,
  MemoryFilter,
  MemoryPatch,
  NewMemory,
  StoredMemory,
  Visibility,
} from '../domain/memory';
import { liveMemorySql, toMemory, type MemoryRow } from '../contracts/memory-row';
import { readableLinksSql } from '../links/contracts/memory-link.sql';
import type { MemoryLink } from '../links/domain/memory-link';
import {
  sharePermissionSql,
  visibleMemoryBranchesSql,
  visibleMemorySql,
  writableMemorySql,
} from '../contracts/memory-visibility.sql';
import type { FinalRead, MemoryLookup } from '../ports/memory-lookup.port';

/**
 * A memory as readers get it; `user` is the caller's parameter. `shared_by` names the owner when
 * the caller reads someone else's memory through a share (directly or by tag).
 */
const memoryColumns = (user: string) => `
  m.id, m.content, m.category, m.tags, m.expanded_keywords, m.importance, m.project, m.is_sensitive, m.visibility,
  u.username AS owner, ${isoTimestamp('m.created_at')} AS created_at, ${isoTimestamp('m.updated_at')} AS updated_at,
  ${isoTimestamp('m.deleted_at')} AS deleted_at, ${isoTimestamp('m.expires_at')} AS expires_at,
  CASE WHEN m.owner_id <> ${user} AND ${sharePermissionSql('m', user)} IS NOT NULL THEN u.username END AS shared_by`;

/** FROM and WHERE of live memories `$1` the caller `$3` of tenant `$2` may read, with their owners. */
const VISIBLE_BY_ID = `FROM memories m JOIN users u ON u.id = m.owner_id
  WHERE m.id = ANY($1::bigint[]) AND m.tenant_id = $2 AND ${visibleMemorySql('m', '$3')} AND ${liveMemorySql('m')}`;

/**
 * Live memories of owner `owner` with content hash `hash`, whether or not they count for the
 * uniqueness rule (`duplicates_hidden`, migration 1763700000035): the tautology lets the planner
 * read both partial indexes (a bitmap OR) instead of every live memory of the owner.
 */
const liveWithHashSql = (owner: string, hash: string) =>
  `m.owner_id = ${owner} AND m.content_hash = ${hash} AND m.deleted_at IS NULL
   AND (m.duplicates_hidden OR NOT m.duplicates_hidden)`;

/** The owner's live memory with this content, which a new one with it would duplicate. */
function duplicateOf(scope: TenantScope, contentHash: Buffer): SqlStatement {
  return {
    sql: `SELECT id, category, importance FROM memories
           WHERE tenant_id = $1 AND owner_id = $2 AND content_hash = $3 AND deleted_at IS NULL
             AND NOT duplicates_hidden`,
    params: [scope.tenantId, scope.userId, contentHash],
  };
}

/** The new row of `insertOrGetDuplicate`, parameters $1…$16. */
const PLAIN_ROW = `VALUES (coalesce($10::bigint, nextval(pg_get_serial_sequence('memories', 'id'))), $1, $2, $3, $4, $5, $6, $7, $8,
               $9, $11::text IS NOT NULL, $11, $12, $13, $14,
               coalesce($15::timestamptz, now()), coalesce($16::timestamptz, $15::timestamptz, now()))`;

/** The same row only while the tenant stays within its quotas ($17 memories, $18 bytes; 0 = unlimited). */
const QUOTA_CHECKED_ROW = `SELECT coalesce($10::bigint, nextval(pg_get_serial_sequence('memories', 'id'))), $1::uuid, $2::uuid,
               $3::text, $4::text, $5::text[], $6::text, $7::double precision, $8::text,
               $9::bytea, $11::text IS NOT NULL, $11::text, $12::integer, $13::text, $14::timestamptz,
               coalesce($15::timestamptz, now()), coalesce($16::timestamptz, $15::timestamptz, now())
        WHERE memory_quota_allows($1::uuid, $17::bigint, $18::bigint, octet_length($3::text))`;

/** The quotas a write is checked against (0 = unlimited). */
export interface MemoryQuota {
  readonly maxMemories: number;
  readonly maxMemoryBytes: number;
}

/** What the caller may do with one memory (row-level security has already hidden the rest). */
export interface MemoryAccess {
  readonly ownerId: string;
  readonly deleted: boolean;
  /** Live (not deleted, not expired) and visible to the caller. */
  readonly readable: boolean;
  /** Owner, a `write` share (direct or by tag), or an admin. */
  readonly writable: boolean;
  /** Shared with the caller directly or by tag (any permission). */
  readonly shared: boolean;
}

/** Where a sensitive row's secret is: a Vault path and version, or a local `enc:v1:` ciphertext. */
export interface RowSecret {
  readonly ref: string;
  readonly version: number | null;
}

interface StoredRow {
  id: string;
  category: string;
  importance: number;
}

const toStored = (row: StoredRow): StoredMemory => ({
  id: Number(row.id),
  category: row.category,
  importance: row.importance,
});

/**
 * SQL for memories. Every statement filters by tenant and by who may read (or, for changes, by the
 * memory's owner, after the use case has checked the caller's access) explicitly; row-level
 * security enforces the caller's rights again underneath, so a missed filter still returns nothing.
 */
export class MemoryRepository implements MemoryLookup {
  /** A memory id drawn before the row exists: a secret is written under its memory's id first. */
  async reserveId(tx: Tx): Promise<number> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT nextval(pg_get_serial_sequence('memories', 'id')) AS id`,
    );
    return Number(rows[0].id);
  }

  /**
   * Inserts unless the owner already has live content with the same hash; `created` tells which.
   * A sensitive memory comes with its reserved `id` and where its secret is stored. With a `quota`
   * the same statement inserts only while the tenant stays within it; `created: false` with no
   * duplicate (`id` null) then means the quota refused the row. `followers` (built with `NEW_ROW`)
   * go in the same statement and write only with a new row. With `options.last` that statement
   * carries the commit, and `null` says it wrote nothing and could not tell why (a duplicate
   * committed while it waited, or the quota): run it again without `last`.
   */
  async insertOrGetDuplicate(
    scope: TenantScope,
    tx: Tx,
    memory: NewMemory & { visibility: Visibility; contentHash: Buffer; id?: number; secret?: RowSecret },
    quota?: MemoryQuota,
    followers: readonly SqlStatement[] = [],
    options: { readonly last?: boolean } = {},
  ): Promise<(StoredMemory & { created: boolean }) | { created: false; id: null } | null> {
    const quotaParams = quota ? [quota.maxMemories, quota.maxMemoryBytes] : [];
    const insert: SqlStatement = {
      sql: `INSERT INTO memories (id, tenant_id, owner_id, content, category, tags, expanded_keywords, importance, project,
                             content_hash, is_sensitive, secret_ref, secret_version, visibility, expires_at,
                             created_at, updated_at)
       OVERRIDING SYSTEM VALUE
       ${quota ? QUOTA_CHECKED_ROW : PLAIN_ROW}
       ON CONFLICT (owner_id, content_hash) WHERE deleted_at IS NULL AND NOT duplicates_hidden DO NOTHING
       RETURNING id, category, importance`,
      params: [
        scope.tenantId,
        scope.userId,
        memory.content,
        memory.category,
        memory.tags,
        memory.expandedKeywords,
        memory.importance,
        memory.project,
        memory.contentHash,
        memory.id ?? null,
        memory.secret?.ref ?? null,
        memory.secret?.version ?? null,
        memory.visibility,
        memory.expiresAt ?? null,
        memory.createdAt ?? null,
        memory.updatedAt ?? null,
        ...quotaParams,
      ],
    };
    const rows = await insertThen<StoredRow>(
      tx,
      insert,
      followers,
      duplicateOf(scope, memory.contentHash),
      // Planning this INSERT under the memories policies costs more than running it.
      { prepared: true, last: options.last },
    );
    if (rows[0]) return { ...toStored(rows[0]), created: rows[0].created };
    if (options.last) return null;
    // A duplicate committed while the INSERT waited on it is not in that statement's snapshot.
    const duplicate = duplicateOf(scope, memory.contentHash);
    const existing = await tx.query<StoredRow>(duplicate.sql, duplicate.params);
    if (!existing.rows[0]) return { created: false, id: null };
    return { ...toStored(existing.rows[0]), created: false };
  }

  /** The tenant's live memories and their content bytes (the usage counters of migration 1763700000025). */
  async usage(scope: TenantScope, tx: Tx): Promise<{ memories: number; bytes: number }> {
    const { rows } = await tx.query<{ memories: string; bytes: string }>(
      `SELECT memories, bytes FROM memory_usage_totals($1)`,
      [scope.tenantId],
    );
    return { memories: Number(rows[0].memories), bytes: Number(rows[0].bytes) };
  }

  /** Where the owner's live memory keeps its secret; null when there is no such memory. */
  async findSecret(
    scope: TenantScope,
    tx: Tx,
    id: number,
  ): Promise<{ isSensitive: boolean; secret: RowSecret | null; content: string; category: string } | null> {
    const { rows } = await tx.query<{
      is_sensitive: boolean;
      secret_ref: string | null;
      secret_version: number | null;
      content: string;
      category: string;
    }>(
      `SELECT is_sensitive, secret_ref, secret_version, content, category FROM memories
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NULL`,
      [id, scope.tenantId, scope.userId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      isSensitive: row.is_sensitive,
      secret: row.secret_ref === null ? null : { ref: row.secret_ref, version: row.secret_version },
      content: row.content,
      category: row.category,
    };
  }

  /** The owner's live memory with this normalised content hash, if any. */
  async findLiveByHash(scope: TenantScope, tx: Tx, contentHash: Buffer): Promise<Memory | null> {
    const { rows } = await tx.query<MemoryRow>(
      `SELECT ${memoryColumns('$2')} FROM memories m JOIN users u ON u.id = m.owner_id
        WHERE m.tenant_id = $1 AND ${liveWithHashSql('$2', '$3')}
        ORDER BY m.duplicates_hidden, m.id LIMIT 1`,
      [scope.tenantId, scope.userId, contentHash],
    );
    return rows[0] ? toMemory(rows[0]) : null;
  }

  async findLive(scope: TenantScope, tx: Tx, id: number): Promise<Memory | null> {
    const { rows } = await tx.query<MemoryRow>(
      `SELECT ${memoryColumns('$3')} FROM memories m JOIN users u ON u.id = m.owner_id
        WHERE m.id = $1 AND m.tenant_id = $2 AND m.owner_id = $3 AND m.deleted_at IS NULL`,
      [id, scope.tenantId, scope.userId],
    );
    return rows[0] ? toMemory(rows[0]) : null;
  }

  /** What the caller may do with memory `id`; null when it does not exist for them. */
  async access(scope: TenantScope, tx: Tx, id: number): Promise<MemoryAccess | null> {
    const { rows } = await tx.query<{
      owner_id: string;
      deleted: boolean;
      readable: boolean;
      writable: boolean;
      shared: boolean;
    }>(
      `SELECT m.owner_id, m.deleted_at IS NOT NULL AS deleted,
              ${visibleMemorySql('m', '$3')} AND ${liveMemorySql('m')} AS readable,
              ${writableMemorySql('m', '$3')} AS writable,
              ${sharePermissionSql('m', '$3')} IS NOT NULL AS shared
         FROM memories m WHERE m.id = $1 AND m.tenant_id = $2`,
      [id, scope.tenantId, scope.userId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      ownerId: row.owner_id,
      deleted: row.deleted,
      readable: row.readable,
      writable: row.writable,
      shared: row.shared,
    };
  }

  /** One live memory the caller may read (own, team, shared with them, or any as an admin). */
  async findVisibleOne(
    scope: TenantScope,
    tx: Tx,
    id: number,
    options: FinalRead = {},
  ): Promise<Memory | null> {
    const [memory] = await this.findVisible(scope, tx, [id], options);
    return memory ?? null;
  }

  /** Live memories the caller may read, in no particular order. */
  async findVisible(
    scope: TenantScope,
    tx: Tx,
    ids: readonly number[],
    options: FinalRead = {},
  ): Promise<Memory[]> {
    if (ids.length === 0) return [];
    const { rows } = await tx.query<MemoryRow>(
      `SELECT ${memoryColumns('$3')} ${VISIBLE_BY_ID}`,
      [ids, scope.tenantId, scope.userId],
      { prepared: true, last: options.last },
    );
    return rows.map(toMemory);
  }

  /** `findVisible`, each memory with its links whose both ends the caller can see, oldest first. */
  async findVisibleWithLinks(
    scope: TenantScope,
    tx: Tx,
    ids: readonly number[],
    options: FinalRead = {},
  ): Promise<Array<{ memory: Memory; links: MemoryLink[] }>> {
    if (ids.length === 0) return [];
    const { rows } = await tx.query<MemoryRow & { links: MemoryLink[] }>(
      `SELECT ${memoryColumns('$3')},
              (SELECT coalesce(json_agg(json_build_object(
                        'id', l.id, 'srcId', l.src_id, 'dstId', l.dst_id, 'linkType', l.link_type,
                        'createdAt', ${isoTimestamp('l.created_at')}) ORDER BY l.created_at, l.id), '[]')
                 ${readableLinksSql('(l.src_id = m.id OR l.dst_id = m.id)', '$2', '$3')}) AS links
         ${VISIBLE_BY_ID}`,
      [ids, scope.tenantId, scope.userId],
      { prepared: true, last: options.last },
    );
    return rows.map((row) => ({ memory: toMemory(row), links: row.links }));
  }

  /** The owner's row whether live or soft-deleted, locked for a state change. */
  async lockOwned(
    scope: TenantScope,
    tx: Tx,
    id: number,
  ): Promise<{ content: string; deleted: boolean; contentHash: Buffer } | null> {
    const { rows } = await tx.query<{ content: string; deleted: boolean; content_hash: Buffer }>(
      `SELECT content, deleted_at IS NOT NULL AS deleted, content_hash FROM memories
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 FOR UPDATE`,
      [id, scope.tenantId, scope.userId],
    );
    const row = rows[0];
    return row ? { content: row.content, deleted: row.deleted, contentHash: row.content_hash } : null;
  }

  async list(
    scope: TenantScope,
    tx: Tx,
    query: MemoryFilter & { limit: number; offset: number },
  ): Promise<{ memories: Memory[]; total: number }> {
    const { params, filters } = this.filterClause(scope, query);
    // Each branch reads its rows in page order from its own index and stops after offset + limit.
    const branches = visibleMemoryBranchesSql({ tenant: '$1', user: '$2', where: filters });
    const order = 'ORDER BY m.importance DESC, m.created_at DESC, m.id DESC';
    const [limit, offset] = [`$${params.length + 1}::int`, `$${params.length + 2}::int`];
    // The page's ids are chosen from the branches' index columns alone; only those rows are then
    // read whole (a plan made once for any caller must not join the visible set to the table).
    const { rows } = await tx.query<MemoryRow>(
      `WITH visible AS (${branches.map((b) => `(SELECT m.id, m.importance, m.created_at ${b} ${order} LIMIT ${limit} + ${offset})`).join(' UNION ALL ')}),
       page AS (SELECT v.id, v.importance, v.created_at FROM visible v
                 ORDER BY v.importance DESC, v.created_at DESC, v.id DESC LIMIT ${limit} OFFSET ${offset})
       SELECT ${memoryColumns('$2')} FROM page p JOIN memories m ON m.id = p.id JOIN users u ON u.id = m.owner_id
        ORDER BY p.importance DESC, p.created_at DESC, p.id DESC`,
      [...params, query.limit, query.offset],
      { prepared: true },
    );
    const memories = rows.map(toMemory);
    // A page that is not full ends the list: its end is the total, no count needed.
    if (rows.length > 0 && rows.length < query.limit) return { memories, total: query.offset + rows.length };
    const total = await tx.query<{ n: number }>(
      `SELECT (${branches.map((b) => `(SELECT count(*) ${b})`).join(' + ')})::int AS n`,
      params,
      { prepared: true },
    );
    return { memories, total: total.rows[0].n };
  }

  /**
   * Changes a live memory of the owner `scope`. With `bytesQuota` the same statement changes it only
   * while the tenant's content stays within that many bytes after growing by `growth`: false then
   * (for a row the caller has locked) means the quota refused the change.
   */
  async update(
    scope: TenantScope,
    tx: Tx,
    id: number,
    patch: MemoryPatch & { contentHash?: Buffer; secret?: RowSecret | null },
    bytesQuota?: { readonly maxMemoryBytes: number; readonly growth: number },
  ): Promise<boolean> {
    const sets: string[] = [];
    const params: unknown[] = [id, scope.tenantId, scope.userId];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (patch.content !== undefined) set('content', patch.content);
    if (patch.contentHash !== undefined) {
      set('content_hash', patch.contentHash);
      // The caller was already refused every duplicate it can see; one it cannot see leaves this
      // row out of the uniqueness rule instead of answering differently (migration 1763700000035).
      sets.push(`duplicates_hidden = memory_content_taken($3, $${params.length}, $1)`);
    }
    if (patch.category !== undefined) set('category', patch.category);
    if (patch.tags !== undefined) set('tags', patch.tags);
    if (patch.expandedKeywords !== undefined) set('expanded_keywords', patch.expandedKeywords);
    if (patch.importance !== undefined) set('importance', patch.importance);
    if (patch.visibility !== undefined) set('visibility', patch.visibility);
    if (patch.expiresAt !== undefined) set('expires_at', patch.expiresAt);
    if (patch.secret !== undefined) {
      set('is_sensitive', patch.secret !== null);
      set('secret_ref', patch.secret?.ref ?? null);
      set('secret_version', patch.secret?.version ?? null);
    }
    let quotaCheck = '';
    if (bytesQuota) {
      params.push(bytesQuota.maxMemoryBytes, bytesQuota.growth);
      quotaCheck = ` AND memory_quota_allows($2, 0, $${params.length - 1}::bigint, $${params.length}::bigint)`;
    }
    const result = await tx.query(
      `UPDATE memories SET ${sets.join(', ')}, updated_at = now()
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NULL${quotaCheck}`,
      params,
    );
    return result.rowCount > 0;
  }

  async softDelete(scope: TenantScope, tx: Tx, id: number): Promise<void> {
    await tx.query(
      `UPDATE memories SET deleted_at = now(), updated_at = now()
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NULL`,
      [id, scope.tenantId, scope.userId],
    );
  }

  /** Undoes a soft delete; returns what the memory's index is built from, or null if it was live. */
  async restore(
    scope: TenantScope,
    tx: Tx,
    id: number,
  ): Promise<{ content: string; expandedKeywords: string; tags: string[] } | null> {
    const { rows } = await tx.query<{ content: string; expanded_keywords: string; tags: string[] }>(
      `UPDATE memories SET deleted_at = NULL, updated_at = now()
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NOT NULL
        RETURNING content, expanded_keywords, tags`,
      [id, scope.tenantId, scope.userId],
    );
    const row = rows[0];
    return row ? { content: row.content, expandedKeywords: row.expanded_keywords, tags: row.tags } : null;
  }

  /**
   * Another live memory of the owner with this content hash that the caller can see (row-level
   * security hides the rest), also one kept out of the uniqueness rule: a writer who stored a text
   * once must be refused it a second time whether or not it duplicated a memory hidden from them.
   */
  async hasLiveDuplicate(
    scope: TenantScope,
    tx: Tx,
    id: number,
    contentHash: Buffer,
  ): Promise<number | null> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT m.id FROM memories m
        WHERE m.tenant_id = $1 AND ${liveWithHashSql('$2', '$3')} AND m.id <> $4
        ORDER BY m.duplicates_hidden, m.id LIMIT 1`,
      [scope.tenantId, scope.userId, contentHash, id],
    );
    return rows[0] ? Number(rows[0].id) : null;
  }

  async purge(scope: TenantScope, tx: Tx, id: number): Promise<void> {
    await tx.query(
      `DELETE FROM memories WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NOT NULL`,
      [id, scope.tenantId, scope.userId],
    );
  }

  /** `visible`: what the caller may read (count); `own`: what the caller may delete (bulk delete). */
  async countMatching(
    scope: TenantScope,
    tx: Tx,
    filter: MemoryFilter,
    reach: 'visible' | 'own' = 'visible',
  ): Promise<number> {
    const { where, params } = this.filterClause(scope, filter, reach);
    const { rows } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memories m WHERE ${where}`,
      params,
    );
    return rows[0].n;
  }

  async softDeleteMatching(scope: TenantScope, tx: Tx, filter: MemoryFilter): Promise<number[]> {
    const { where, params } = this.filterClause(scope, filter, 'own');
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE memories m SET deleted_at = now(), updated_at = now() WHERE ${where} RETURNING m.id`,
      params,
    );
    return rows.map((r) => Number(r.id));
  }

  /** Soft-deletes up to `limit` expired live memories (all tenants: a system transaction). */
  async softDeleteExpired(tx: Tx, limit: number): Promise<number> {
    const result = await tx.query(
      `UPDATE memories SET deleted_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM memories
                      WHERE deleted_at IS NULL AND expires_at <= now()
                      ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [limit],
    );
    return result.rowCount;
  }

  private filterClause(
    scope: TenantScope,
    filter: MemoryFilter,
    reach: 'visible' | 'own' = 'visible',
  ): { where: string; params: unknown[]; filters: string } {
    const params: unknown[] = [scope.tenantId, scope.userId];
    // `visible`: what the caller may read (RLS says the same underneath); `own`: the caller's.
    const owner = reach === 'own' ? 'm.owner_id = $2' : visibleMemorySql('m', '$2');
    const clauses = [liveMemorySql('m')];
    if (filter.category !== undefined) {
      params.push(filter.category.toLowerCase());
      clauses.push(`m.category = $${params.length}`);
    }
    if (filter.tag !== undefined) {
      params.push([filter.tag]);
      clauses.push(`m.tags @> $${params.length}::text[]`);
    }
    if (filter.project !== undefined) {
      params.push(filter.project);
      clauses.push(`m.project = $${params.length}`);
    }
    if (filter.visibility !== undefined) {
      params.push(filter.visibility);
      clauses.push(`m.visibility = $${params.length}`);
    }
    if (filter.author !== undefined) {
      params.push(filter.author);
      clauses.push(
        `m.owner_id = (SELECT ou.id FROM users ou WHERE ou.tenant_id = $1 AND ou.username = $${params.length})`,
      );
    }
    const filters = clauses.join(' AND ');
    return { where: `m.tenant_id = $1 AND ${owner} AND ${filters}`, params, filters };
  }
}
