import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import { writableMemorySql } from '../read-model/memory-visibility.sql';
import { readableLinksSql, readableMemorySql } from '../read-model/memory-link.sql';
import { type LinkType, type MemoryLink, type NewMemoryLink } from '../domain/memory-link';

interface LinkRow {
  id: string;
  src_id: string;
  dst_id: string;
  link_type: LinkType;
  created_at: string;
}

const LINK_COLUMNS = `l.id, l.src_id, l.dst_id, l.link_type, ${isoTimestamp('l.created_at')} AS created_at`;

const toLink = (row: LinkRow): MemoryLink => ({
  id: Number(row.id),
  srcId: Number(row.src_id),
  dstId: Number(row.dst_id),
  linkType: row.link_type,
  createdAt: row.created_at,
});

/**
 * SQL for memory links. Each statement states who may see both ends explicitly; row-level
 * security (a link is visible when both memories are) enforces it again underneath.
 */
export class MemoryLinkRepository {
  /** Of `ids`, the live memories the caller can see, each with whether they may change it. */
  async accessOf(
    scope: TenantScope,
    tx: Tx,
    ids: readonly number[],
  ): Promise<Map<number, { writable: boolean }>> {
    const { rows } = await tx.query<{ id: string; writable: boolean }>(
      `SELECT m.id, ${writableMemorySql('m', '$3')} AS writable FROM memories m
        WHERE m.id = ANY($1::bigint[]) AND ${readableMemorySql('m', '$2', '$3')}`,
      [ids, scope.tenantId, scope.userId],
    );
    return new Map(rows.map((r) => [Number(r.id), { writable: r.writable }]));
  }

  /**
   * Takes the tenant's supersedes-graph lock (to commit) and says whether `src supersedes dst`
   * would close a cycle, counting links the caller cannot see too (migration 1763700000010).
   */
  async closesCycle(tx: Tx, link: NewMemoryLink): Promise<boolean> {
    const { rows } = await tx.query<{ cycle: boolean }>(`SELECT memory_link_closes_cycle($1, $2) AS cycle`, [
      link.srcId,
      link.dstId,
    ]);
    return rows[0].cycle;
  }

  /** Inserts the link; null when it already exists. */
  async insert(scope: TenantScope, tx: Tx, link: NewMemoryLink): Promise<MemoryLink | null> {
    const { rows } = await tx.query<LinkRow>(
      `INSERT INTO memory_links AS l (tenant_id, src_id, dst_id, link_type, created_by)
       VALUES ($1, $3, $4, $5, $2)
       ON CONFLICT (src_id, dst_id, link_type, tenant_id) DO NOTHING
       RETURNING ${LINK_COLUMNS}`,
      [scope.tenantId, scope.userId, link.srcId, link.dstId, link.linkType],
    );
    return rows[0] ? toLink(rows[0]) : null;
  }

  async findOne(scope: TenantScope, tx: Tx, link: NewMemoryLink): Promise<MemoryLink | null> {
    const { rows } = await tx.query<LinkRow>(
      `SELECT ${LINK_COLUMNS} FROM memory_links l
        WHERE l.src_id = $1 AND l.dst_id = $2 AND l.link_type = $3 AND l.tenant_id = $4`,
      [link.srcId, link.dstId, link.linkType, scope.tenantId],
    );
    return rows[0] ? toLink(rows[0]) : null;
  }

  /** Deletes the link when the caller can see its target; the removed link, or null. */
  async delete(scope: TenantScope, tx: Tx, link: NewMemoryLink): Promise<MemoryLink | null> {
    const { rows } = await tx.query<LinkRow>(
      `DELETE FROM memory_links l USING memories d
        WHERE l.src_id = $1 AND l.dst_id = $2 AND l.link_type = $3 AND l.tenant_id = $4
          AND d.id = l.dst_id AND ${readableMemorySql('d', '$4', '$5')}
        RETURNING ${LINK_COLUMNS}`,
      [link.srcId, link.dstId, link.linkType, scope.tenantId, scope.userId],
    );
    return rows[0] ? toLink(rows[0]) : null;
  }

  async findTouching(scope: TenantScope, tx: Tx, ids: readonly number[]): Promise<MemoryLink[]> {
    if (ids.length === 0) return [];
    const { rows } = await tx.query<LinkRow>(
      `SELECT ${LINK_COLUMNS}
         ${readableLinksSql('(l.src_id = ANY($1::bigint[]) OR l.dst_id = ANY($1::bigint[]))', '$2', '$3')}
        ORDER BY l.created_at, l.id`,
      [ids, scope.tenantId, scope.userId],
    );
    return rows.map(toLink);
  }
}
