import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { MemoryVersion, VersionedField } from '../../domain/memory-version';
import type { Visibility } from '../../domain/memory';
import { liveMemorySql } from '../../read-model/memory-row';
import { visibleMemorySql } from '../../read-model/memory-visibility.sql';

/** A version with the usernames of its author and of who replaced it (null once unknown). */
export interface ListedMemoryVersion extends MemoryVersion {
  readonly author: string | null;
  readonly replacedByName: string | null;
}

interface VersionRow {
  memory_id: string;
  version: number;
  content: string;
  category: string;
  tags: string[];
  importance: number;
  project: string | null;
  visibility: Visibility;
  is_sensitive: boolean;
  author_id: string | null;
  author: string | null;
  valid_from: string;
  replaced_by: string | null;
  replaced_by_name: string | null;
  replaced_at: string;
  changed_fields: VersionedField[];
}

const toVersion = (row: VersionRow): ListedMemoryVersion => ({
  memoryId: Number(row.memory_id),
  version: row.version,
  content: row.content,
  category: row.category,
  tags: row.tags,
  importance: row.importance,
  project: row.project,
  visibility: row.visibility,
  isSensitive: row.is_sensitive,
  authorId: row.author_id,
  author: row.author,
  validFrom: row.valid_from,
  replacedBy: row.replaced_by,
  replacedByName: row.replaced_by_name,
  replacedAt: row.replaced_at,
  changedFields: row.changed_fields,
});

/**
 * The versions of one live memory the caller may read ($1 memory, $2 tenant, $3 caller): the
 * visibility rule is stated here and row-level security says it again (a version is readable when
 * its memory is, migration 1763700000045).
 */
const VISIBLE_VERSIONS = `
  SELECT v.memory_id, v.version, v.content, v.category, v.tags, v.importance, v.project, v.visibility,
         v.is_sensitive, v.author_id, au.username AS author, ${isoTimestamp('v.valid_from')} AS valid_from,
         v.replaced_by, rb.username AS replaced_by_name, ${isoTimestamp('v.replaced_at')} AS replaced_at,
         v.changed_fields
    FROM memory_versions v
    JOIN memories m ON m.id = v.memory_id
    LEFT JOIN users au ON au.id = v.author_id
    LEFT JOIN users rb ON rb.id = v.replaced_by
   WHERE v.memory_id = $1 AND m.tenant_id = $2 AND v.tenant_id = $2
     AND ${visibleMemorySql('m', '$3')} AND ${liveMemorySql('m')}`;

/** Reads `memory_versions` for the versions wing; the core's write path writes them. */
export class MemoryVersionRepository {
  /** Newest first: at most `limit` versions, those below `before` when given. */
  async list(
    scope: TenantScope,
    tx: Tx,
    memoryId: number,
    page: { readonly limit: number; readonly before?: number },
  ): Promise<ListedMemoryVersion[]> {
    const { rows } = await tx.query<VersionRow>(
      `${VISIBLE_VERSIONS} AND ($4::integer IS NULL OR v.version < $4)
        ORDER BY v.version DESC LIMIT $5`,
      [memoryId, scope.tenantId, scope.userId, page.before ?? null, page.limit],
    );
    return rows.map(toVersion);
  }

  /** The given versions of the memory (those that exist), in no particular order. */
  async find(
    scope: TenantScope,
    tx: Tx,
    memoryId: number,
    versions: readonly number[],
  ): Promise<ListedMemoryVersion[]> {
    const { rows } = await tx.query<VersionRow>(`${VISIBLE_VERSIONS} AND v.version = ANY ($4::integer[])`, [
      memoryId,
      scope.tenantId,
      scope.userId,
      [...versions],
    ]);
    return rows.map(toVersion);
  }
}
