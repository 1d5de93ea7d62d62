import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { Visibility } from '../../domain/memory';
import type { VersionChangeField } from '../../domain/memory-version';
import { anchorsColumnSql, liveMemorySql, toMemory, type MemoryRow } from '../../read-model/memory-row';
import type { ExportedMemory, ExportFilter } from '../domain/memory-export';

const EXPORT_CURSOR = 'memory_export_dump';

/** Links, shares and versions are aggregated per row, so one FETCH returns whole records. */
const EXPORT_COLUMNS = `
  m.id, m.content, m.category, m.tags, m.expanded_keywords, m.importance, m.project, m.is_sensitive,
  m.visibility, m.branch, '' AS owner, ${anchorsColumnSql('m')},
  ${isoTimestamp('m.created_at')} AS created_at, ${isoTimestamp('m.updated_at')} AS updated_at,
  ${isoTimestamp('m.deleted_at')} AS deleted_at, ${isoTimestamp('m.expires_at')} AS expires_at,
  coalesce((SELECT json_agg(json_build_object('id', l.dst_id, 'link_type', l.link_type)
                            ORDER BY l.dst_id, l.link_type)
              FROM memory_links l WHERE l.src_id = m.id), '[]'::json) AS links,
  coalesce((SELECT json_agg(json_build_object('username', u.username, 'permission', s.permission)
                            ORDER BY u.username)
              FROM memory_shares s JOIN users u ON u.id = s.shared_with
             WHERE s.memory_id = m.id), '[]'::json) AS shares,
  coalesce((SELECT json_agg(json_build_object(
                     'version', v.version, 'content', v.content, 'category', v.category, 'tags', v.tags,
                     'importance', v.importance, 'project', v.project, 'visibility', v.visibility,
                     'is_sensitive', v.is_sensitive, 'valid_from', ${isoTimestamp('v.valid_from')},
                     'replaced_at', ${isoTimestamp('v.replaced_at')}, 'changed_fields', v.changed_fields)
                   ORDER BY v.version)
              FROM memory_versions v WHERE v.memory_id = m.id), '[]'::json) AS versions`;

interface ExportRow extends MemoryRow {
  links: { id: string | number; link_type: ExportedMemory['links'][number]['linkType'] }[];
  shares: ExportedMemory['shares'][number][];
  versions: {
    version: number;
    content: string;
    category: string;
    tags: string[];
    importance: number;
    project: string | null;
    visibility: Visibility;
    is_sensitive: boolean;
    valid_from: string;
    replaced_at: string;
    changed_fields: VersionChangeField[];
  }[];
}

const toExported = (row: ExportRow): ExportedMemory => {
  const { owner: _owner, sharedBy: _sharedBy, ...memory } = toMemory(row);
  return {
    ...memory,
    links: row.links.map((l) => ({ id: Number(l.id), linkType: l.link_type })),
    shares: row.shares,
    versions: row.versions.map((v) => ({
      version: v.version,
      content: v.content,
      category: v.category,
      tags: v.tags,
      importance: v.importance,
      project: v.project,
      visibility: v.visibility,
      isSensitive: v.is_sensitive,
      validFrom: v.valid_from,
      replacedAt: v.replaced_at,
      changedFields: v.changed_fields,
    })),
  };
};

/**
 * SQL for exports: always the caller's own rows (owner = user), read through a server-side cursor
 * so an export of any size holds one batch in memory. Row-level security says the same underneath.
 */
export class MemoryExportRepository {
  /** `byCategory` orders by category first (the markdown document groups by it); else by id. */
  async open(scope: TenantScope, tx: Tx, filter: ExportFilter & { byCategory: boolean }): Promise<void> {
    const params: unknown[] = [scope.tenantId, scope.userId];
    const where = ['m.tenant_id = $1', 'm.owner_id = $2'];
    if (!filter.includeDeleted) where.push(liveMemorySql('m'));
    if (filter.project !== undefined) {
      params.push(filter.project);
      where.push(`m.project = $${params.length}`);
    }
    if (filter.since !== undefined) {
      params.push(filter.since);
      const since = `$${params.length}::timestamptz`;
      where.push(`(m.updated_at >= ${since} OR m.deleted_at >= ${since})`);
    }
    await tx.query(
      `DECLARE ${EXPORT_CURSOR} NO SCROLL CURSOR FOR
         SELECT ${EXPORT_COLUMNS} FROM memories m
          WHERE ${where.join(' AND ')}
          ORDER BY ${filter.byCategory ? 'm.category, m.id' : 'm.id'}`,
      params,
    );
  }

  async fetch(tx: Tx, batchSize: number): Promise<ExportedMemory[]> {
    const { rows } = await tx.query<ExportRow>(
      `FETCH FORWARD ${Math.trunc(batchSize)} FROM ${EXPORT_CURSOR}`,
    );
    return rows.map(toExported);
  }

  async close(tx: Tx): Promise<void> {
    await tx.query(`CLOSE ${EXPORT_CURSOR}`);
  }
}
