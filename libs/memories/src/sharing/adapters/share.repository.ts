import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import { liveMemorySql, toMemory, type MemoryRow } from '../../read-model/memory-row';
import { sharePermissionSql } from '../../read-model/memory-visibility.sql';
import type { MyMemoryShare, MyTagShare, SharedMemory, SharePermission } from '../../domain/share';

const PREVIEW_LENGTH = 80;

/**
 * SQL for shares. Writes name the memory's owner (`owner`, after the use case checked the caller
 * may manage the memory); row-level security lets only that owner or an admin write them.
 */
export class ShareRepository {
  /** The id of user `username` of the caller's tenant, or null. */
  async findUserId(scope: TenantScope, tx: Tx, username: string): Promise<string | null> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM users WHERE tenant_id = $1 AND username = $2`,
      [scope.tenantId, username],
    );
    return rows[0]?.id ?? null;
  }

  async upsertMemoryShare(
    owner: TenantScope,
    tx: Tx,
    share: { memoryId: number; userId: string; permission: SharePermission },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (memory_id, shared_with, tenant_id) DO UPDATE SET permission = EXCLUDED.permission`,
      [share.memoryId, owner.userId, share.userId, owner.tenantId, share.permission],
    );
  }

  /** True when a share was removed. */
  async deleteMemoryShare(owner: TenantScope, tx: Tx, memoryId: number, userId: string): Promise<boolean> {
    const result = await tx.query(
      `DELETE FROM memory_shares WHERE memory_id = $1 AND owner_id = $2 AND shared_with = $3 AND tenant_id = $4`,
      [memoryId, owner.userId, userId, owner.tenantId],
    );
    return result.rowCount > 0;
  }

  async upsertTagShare(
    owner: TenantScope,
    tx: Tx,
    share: { tag: string; userId: string; permission: SharePermission },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (owner_id, tag, shared_with, tenant_id) DO UPDATE SET permission = EXCLUDED.permission`,
      [owner.userId, share.tag, share.userId, owner.tenantId, share.permission],
    );
  }

  async deleteTagShare(owner: TenantScope, tx: Tx, tag: string, userId: string): Promise<boolean> {
    const result = await tx.query(
      `DELETE FROM tag_shares WHERE owner_id = $1 AND tag = $2 AND shared_with = $3 AND tenant_id = $4`,
      [owner.userId, tag, userId, owner.tenantId],
    );
    return result.rowCount > 0;
  }

  /**
   * Live memories of other users shared with the caller, directly or by a tag rule, with the
   * strongest permission held; most important first.
   */
  async sharedWith(scope: TenantScope, tx: Tx, limit: number): Promise<SharedMemory[]> {
    const { rows } = await tx.query<MemoryRow & { permission: SharePermission }>(
      `SELECT m.id, m.content, m.category, m.tags, m.expanded_keywords, m.importance, m.project, m.is_sensitive,
              m.visibility, u.username AS owner, u.username AS shared_by, p.permission,
              ${isoTimestamp('m.created_at')} AS created_at, ${isoTimestamp('m.updated_at')} AS updated_at,
              ${isoTimestamp('m.deleted_at')} AS deleted_at, ${isoTimestamp('m.expires_at')} AS expires_at
         FROM memories m
         JOIN users u ON u.id = m.owner_id
         CROSS JOIN LATERAL (SELECT ${sharePermissionSql('m', '$2')} AS permission) p
        WHERE m.tenant_id = $1 AND m.owner_id <> $2 AND ${liveMemorySql('m')}
          AND m.id IN (SELECT s.memory_id FROM memory_shares s WHERE s.shared_with = $2 AND s.tenant_id = $1
                       UNION
                       SELECT x.id FROM tag_shares t JOIN memories x ON x.owner_id = t.owner_id AND x.tags @> ARRAY[t.tag]
                        WHERE t.shared_with = $2 AND t.tenant_id = $1)
        ORDER BY m.importance DESC, m.id DESC
        LIMIT $3`,
      [scope.tenantId, scope.userId, limit],
    );
    return rows.map((row) => ({ ...toMemory(row), permission: row.permission }));
  }

  /** The caller's shares of live memories and tag rules, newest first. */
  async sharesBy(scope: TenantScope, tx: Tx): Promise<{ memories: MyMemoryShare[]; tags: MyTagShare[] }> {
    const memories = await tx.query<{
      memory_id: string;
      shared_with: string;
      permission: SharePermission;
      preview: string;
      created_at: string;
    }>(
      `SELECT s.memory_id, u.username AS shared_with, s.permission, substr(m.content, 1, ${PREVIEW_LENGTH}) AS preview,
              ${isoTimestamp('s.created_at')} AS created_at
         FROM memory_shares s
         JOIN memories m ON m.id = s.memory_id
         JOIN users u ON u.id = s.shared_with
        WHERE s.tenant_id = $1 AND s.owner_id = $2 AND ${liveMemorySql('m')}
        ORDER BY s.created_at DESC, s.memory_id DESC`,
      [scope.tenantId, scope.userId],
    );
    const tags = await tx.query<{
      tag: string;
      shared_with: string;
      permission: SharePermission;
      created_at: string;
    }>(
      `SELECT t.tag, u.username AS shared_with, t.permission, ${isoTimestamp('t.created_at')} AS created_at
         FROM tag_shares t JOIN users u ON u.id = t.shared_with
        WHERE t.tenant_id = $1 AND t.owner_id = $2
        ORDER BY t.created_at DESC, t.tag`,
      [scope.tenantId, scope.userId],
    );
    return {
      memories: memories.rows.map((r) => ({
        memoryId: Number(r.memory_id),
        sharedWith: r.shared_with,
        permission: r.permission,
        preview: r.preview,
        createdAt: r.created_at,
      })),
      tags: tags.rows.map((r) => ({
        tag: r.tag,
        sharedWith: r.shared_with,
        permission: r.permission,
        createdAt: r.created_at,
      })),
    };
  }
}
