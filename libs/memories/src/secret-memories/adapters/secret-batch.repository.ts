import { type Tx } from '@app/persistence';
import type { RowSecret } from '../../read-model/memory-read.repository';

/** A row the secret migration screens. */
export interface UnscreenedRow {
  readonly id: string;
  readonly ownerId: string;
  readonly content: string;
  readonly category: string;
  readonly tags: readonly string[];
  readonly expandedKeywords: string;
  readonly project: string | null;
}

/**
 * SQL for the secret migration's batches: rows not yet screened, read in id order and rewritten
 * with their redacted text. Runs as the system role for one tenant (and optionally one owner).
 */
export class SecretBatchRepository {
  /**
   * Memories not yet marked sensitive (live or soft-deleted: a restore must not bring a secret
   * back), in id order after `afterId`, locked for the secret migration unless `lock` is false.
   * A concurrent migration waits for the lock and then skips rows it already moved.
   */
  async lockUnscreenedBatch(
    tx: Tx,
    filter: { tenantId: string; ownerId?: string; afterId: string; limit: number; lock: boolean },
  ): Promise<UnscreenedRow[]> {
    const params: unknown[] = [filter.tenantId, filter.afterId, filter.limit];
    const owner = filter.ownerId === undefined ? '' : `AND owner_id = $${params.push(filter.ownerId)}`;
    const { rows } = await tx.query<{
      id: string;
      owner_id: string;
      content: string;
      category: string;
      tags: string[];
      expanded_keywords: string;
      project: string | null;
    }>(
      `SELECT id, owner_id, content, category, tags, expanded_keywords, project FROM memories
        WHERE tenant_id = $1 AND NOT is_sensitive AND id > $2::bigint ${owner}
        ORDER BY id LIMIT $3 ${filter.lock ? 'FOR UPDATE' : ''}`,
      params,
    );
    return rows.map((r) => ({
      id: r.id,
      ownerId: r.owner_id,
      content: r.content,
      category: r.category,
      tags: r.tags,
      expandedKeywords: r.expanded_keywords,
      project: r.project,
    }));
  }

  async countUnscreened(tx: Tx, filter: { tenantId: string; ownerId?: string }): Promise<number> {
    const params: unknown[] = [filter.tenantId];
    const owner = filter.ownerId === undefined ? '' : `AND owner_id = $${params.push(filter.ownerId)}`;
    const { rows } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memories WHERE tenant_id = $1 AND NOT is_sensitive ${owner}`,
      params,
    );
    return rows[0].n;
  }

  /**
   * Replaces a row's text with its redacted form and points it at its secret (if one was kept);
   * `contentHash` null keeps the row's hash (its content did not change).
   */
  async applyRedaction(
    tx: Tx,
    id: string,
    redacted: {
      content: string;
      category: string;
      tags: readonly string[];
      expandedKeywords: string;
      project: string | null;
      contentHash: Buffer | null;
      secret: RowSecret | null;
    },
  ): Promise<void> {
    await tx.query(
      `UPDATE memories
          SET content = $2, category = $3, tags = $4, expanded_keywords = $5, project = $6, content_hash = coalesce($7, content_hash),
              is_sensitive = $8::text IS NOT NULL, secret_ref = $8, secret_version = $9, updated_at = now()
        WHERE id = $1`,
      [
        id,
        redacted.content,
        redacted.category,
        redacted.tags,
        redacted.expandedKeywords,
        redacted.project,
        redacted.contentHash,
        redacted.secret?.ref ?? null,
        redacted.secret?.version ?? null,
      ],
    );
  }
}
