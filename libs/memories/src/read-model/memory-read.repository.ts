import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { Memory, MemoryFilter } from '../domain/memory';
import type { MemoryLink } from '../domain/memory-link';
import { readableLinksSql } from './memory-link.sql';
import { anchorsColumnSql, liveMemorySql, pinnedColumnSql, toMemory, type MemoryRow } from './memory-row';
import { findTeamDuplicate, liveWithHashSql, memoryFilterSql, type TeamDuplicate } from './memory-filter.sql';
import {
  sharePermissionSql,
  visibleMemoryBranchesSql,
  visibleMemorySql,
  writableMemorySql,
} from './memory-visibility.sql';
import type { FinalRead, MemoryLookup } from './memory-lookup.port';

/**
 * A memory as readers get it; `user` is the caller's parameter. `shared_by` names the owner when
 * the caller reads someone else's memory through a share (directly or by tag).
 */
const memoryColumns = (user: string) => `
  m.id, m.content, m.category, m.tags, m.expanded_keywords, m.importance, m.project, m.is_sensitive, m.visibility,
  m.review_state, m.branch, u.username AS owner, ${isoTimestamp('m.created_at')} AS created_at, ${isoTimestamp('m.updated_at')} AS updated_at,
  ${isoTimestamp('m.deleted_at')} AS deleted_at, ${isoTimestamp('m.expires_at')} AS expires_at,
  CASE WHEN m.owner_id <> ${user} AND ${sharePermissionSql('m', user)} IS NOT NULL THEN u.username END AS shared_by`;

/** FROM and WHERE of live memories `$1` the caller `$3` of tenant `$2` may read, with their owners. */
const VISIBLE_BY_ID = `FROM memories m JOIN users u ON u.id = m.owner_id
  WHERE m.id = ANY($1::bigint[]) AND m.tenant_id = $2 AND ${visibleMemorySql('m', '$3')} AND ${liveMemorySql('m')}`;

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
  /** Visible to the whole team (`visibility = 'team'`). */
  readonly team: boolean;
  /** `accepted`, `proposed` or `rejected` (migration 1763700000048). */
  readonly reviewState: string;
}

/** Where a sensitive row's secret is: a Vault path and version, or a local `enc:v1:` ciphertext. */
export interface RowSecret {
  readonly ref: string;
  readonly version: number | null;
}

/**
 * The read side of memories: the one way other code reads them. Every statement filters by tenant
 * and by who may read explicitly; row-level security enforces the caller's rights again
 * underneath, so a missed filter still returns nothing.
 */
export class MemoryReadRepository implements MemoryLookup {
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

  findTeamDuplicate(
    scope: TenantScope,
    tx: Tx,
    contentHash: Buffer,
    near: readonly number[],
  ): Promise<TeamDuplicate | null> {
    return findTeamDuplicate(scope, tx, contentHash, near);
  }

  async teammatesShareMemories(scope: TenantScope, tx: Tx, options: FinalRead = {}): Promise<boolean> {
    const { rows } = await tx.query<{ any: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM memories m
                       WHERE m.tenant_id = $1 AND m.visibility = 'team' AND m.owner_id <> $2
                         AND m.deleted_at IS NULL) AS any`,
      [scope.tenantId, scope.userId],
      { last: options.last },
    );
    return rows[0]?.any === true;
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
      team: boolean;
      review_state: string;
    }>(
      `SELECT m.owner_id, m.deleted_at IS NOT NULL AS deleted, m.visibility = 'team' AS team, m.review_state,
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
      team: row.team,
      reviewState: row.review_state,
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
      `SELECT ${memoryColumns('$3')}, ${anchorsColumnSql('m')} ${VISIBLE_BY_ID}`,
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
      `SELECT ${memoryColumns('$3')}, ${pinnedColumnSql('m', '$3')}, ${anchorsColumnSql('m')},
              (SELECT coalesce(json_agg(json_build_object(
                        'id', l.id, 'srcId', l.src_id, 'dstId', l.dst_id, 'linkType', l.link_type,
                        'createdAt', ${isoTimestamp('l.created_at')},
                        'proposed', src.review_state = 'proposed') ORDER BY l.created_at, l.id), '[]')
                 ${readableLinksSql('(l.src_id = m.id OR l.dst_id = m.id)', '$2', '$3')}) AS links
         ${VISIBLE_BY_ID}`,
      [ids, scope.tenantId, scope.userId],
      { prepared: true, last: options.last },
    );
    // `proposed` only where it is true: a link from a memory in force reads as every other link.
    const link = ({ proposed, ...rest }: MemoryLink): MemoryLink => (proposed ? { ...rest, proposed } : rest);
    return rows.map((row) => ({ memory: toMemory(row), links: row.links.map(link) }));
  }

  async list(
    scope: TenantScope,
    tx: Tx,
    query: MemoryFilter & { limit: number; offset: number },
  ): Promise<{ memories: Memory[]; total: number }> {
    const { params, filters } = memoryFilterSql(scope, query);
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
       SELECT ${memoryColumns('$2')}, ${pinnedColumnSql('m', '$2')}, ${anchorsColumnSql('m')} FROM page p JOIN memories m ON m.id = p.id JOIN users u ON u.id = m.owner_id
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

  /** `visible`: what the caller may read (count); `own`: what the caller may delete (bulk delete). */
  async countMatching(
    scope: TenantScope,
    tx: Tx,
    filter: MemoryFilter,
    reach: 'visible' | 'own' = 'visible',
  ): Promise<number> {
    const { where, params } = memoryFilterSql(scope, filter, reach);
    const { rows } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memories m WHERE ${where}`,
      params,
    );
    return rows[0].n;
  }
}
