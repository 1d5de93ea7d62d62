import type { TenantScope, Tx } from '@app/persistence';
import type { PortableMemoryVersion, VersionChangeField, VersionedChange } from '../domain/memory-version';

/**
 * Writes `memory_versions` rows (migration 1763700000045): the core's write path keeps a memory's
 * previous state in the transaction that changes it; the versions wing only reads them.
 */
export class MemoryVersionWriteRepository {
  /**
   * Keeps memory `id`'s current row as its next version when `change` alters one of the versioned
   * fields; answers the version's number, or null when nothing versioned changes. Run on the row
   * the caller has locked, before the UPDATE: the statement copies the stored row, so a sensitive
   * memory's version holds its redacted text only. `redactedContent` replaces the stored text of a
   * row that holds a secret in clear (written before screening); the version is then sensitive.
   * `project` never changes through an update. `also` names changes outside the state (`anchors`):
   * with one, the version is kept even when no versioned field changes.
   */
  async recordChange(
    scope: TenantScope & { readonly changedBy: string },
    tx: Tx,
    id: number,
    change: VersionedChange,
    redactedContent?: string,
    also: readonly VersionChangeField[] = [],
  ): Promise<number | null> {
    const { rows } = await tx.query<{ version: number }>(
      `INSERT INTO memory_versions (memory_id, version, tenant_id, content, category, tags, importance, project,
                                    visibility, is_sensitive, author_id, valid_from, replaced_by, changed_fields)
       SELECT m.id, coalesce(last.version, 0) + 1, m.tenant_id, coalesce($9::text, m.content), m.category, m.tags,
              m.importance, m.project, m.visibility, m.is_sensitive OR $9::text IS NOT NULL,
              CASE WHEN last.version IS NULL THEN m.owner_id ELSE last.replaced_by END,
              m.updated_at, $3, c.fields
         FROM memories m
         LEFT JOIN LATERAL (SELECT v.version, v.replaced_by FROM memory_versions v
                             WHERE v.memory_id = m.id ORDER BY v.version DESC LIMIT 1) last ON true
        CROSS JOIN LATERAL (SELECT array_remove(ARRAY[
                 CASE WHEN $4::text IS NOT NULL AND $4::text IS DISTINCT FROM m.content THEN 'content' END,
                 CASE WHEN $5::text[] IS NOT NULL AND $5::text[] IS DISTINCT FROM m.tags THEN 'tags' END,
                 CASE WHEN $6::text IS NOT NULL AND $6::text IS DISTINCT FROM m.category THEN 'category' END,
                 CASE WHEN $7::double precision IS NOT NULL AND $7::double precision IS DISTINCT FROM m.importance
                      THEN 'importance' END,
                 CASE WHEN $8::text IS NOT NULL AND $8::text IS DISTINCT FROM m.visibility THEN 'visibility' END
               ] || $10::text[], NULL) AS fields) c
        WHERE m.id = $1 AND m.tenant_id = $2 AND cardinality(c.fields) > 0
       RETURNING version`,
      [
        id,
        scope.tenantId,
        scope.changedBy,
        change.content ?? null,
        change.tags ? [...change.tags] : null,
        change.category ?? null,
        change.importance ?? null,
        change.visibility ?? null,
        redactedContent ?? null,
        [...also],
      ],
    );
    return rows[0]?.version ?? null;
  }

  /**
   * Gives a memory just imported the versions its export carried, written by the importer. A memory
   * that already has versions (the import found it as an existing duplicate) keeps its own.
   */
  async importVersions(
    scope: TenantScope,
    tx: Tx,
    memoryId: number,
    versions: readonly PortableMemoryVersion[],
  ): Promise<number> {
    if (versions.length === 0) return 0;
    const result = await tx.query(
      `INSERT INTO memory_versions (memory_id, version, tenant_id, content, category, tags, importance, project,
                                    visibility, is_sensitive, author_id, valid_from, replaced_by, replaced_at,
                                    changed_fields)
       SELECT $1, v.version, $2, v.content, v.category, v.tags, v.importance, v.project, v.visibility,
              v.is_sensitive, $3, v.valid_from, $3, v.replaced_at, v.changed_fields
         FROM json_to_recordset($4::json) AS v(version integer, content text, category text, tags text[],
                importance double precision, project text, visibility text, is_sensitive boolean,
                valid_from timestamptz, replaced_at timestamptz, changed_fields text[])
        WHERE NOT EXISTS (SELECT 1 FROM memory_versions e WHERE e.memory_id = $1)
       ON CONFLICT (memory_id, version, tenant_id) DO NOTHING`,
      [
        memoryId,
        scope.tenantId,
        scope.userId,
        JSON.stringify(
          versions.map((v) => ({
            version: v.version,
            content: v.content,
            category: v.category,
            tags: v.tags,
            importance: v.importance,
            project: v.project,
            visibility: v.visibility,
            is_sensitive: v.isSensitive,
            valid_from: v.validFrom,
            replaced_at: v.replacedAt,
            changed_fields: v.changedFields,
          })),
        ),
      ],
    );
    return result.rowCount;
  }
}
