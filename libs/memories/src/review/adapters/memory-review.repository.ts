import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import { liveMemorySql } from '../../read-model/memory-row';
import { visibleMemorySql } from '../../read-model/memory-visibility.sql';

/** A proposal waiting for review and the memory it would correct (null: a new team memory). */
export interface PendingProposal {
  readonly id: number;
  readonly supersedes: number | null;
}

export type ReviewDecision = 'accept' | 'reject';

/**
 * Proposals: the ones a caller can see (newest first), the memory each corrects, and the state change
 * of a review. `settle` runs in a system transaction: the reviewer (owner of the corrected memory, or
 * an admin) changes a row the proposer owns, after the use case checked that right.
 */
@Injectable()
export class MemoryReviewRepository {
  async pending(scope: TenantScope, tx: Tx, limit: number): Promise<PendingProposal[]> {
    const { rows } = await tx.query<{ id: string; supersedes: string | null }>(
      `SELECT m.id, (SELECT l.dst_id FROM memory_links l
                      WHERE l.src_id = m.id AND l.link_type = 'supersedes' ORDER BY l.id LIMIT 1) AS supersedes
         FROM memories m
        WHERE m.tenant_id = $1 AND m.review_state = 'proposed' AND ${liveMemorySql('m')}
          AND ${visibleMemorySql('m', '$2')}
        ORDER BY m.created_at DESC, m.id DESC LIMIT $3`,
      [scope.tenantId, scope.userId, limit],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      supersedes: r.supersedes === null ? null : Number(r.supersedes),
    }));
  }

  /** The memory a proposal corrects (its `supersedes` link), or null. */
  async corrects(scope: TenantScope, tx: Tx, id: number): Promise<number | null> {
    const { rows } = await tx.query<{ dst_id: string }>(
      `SELECT l.dst_id FROM memory_links l
        WHERE l.src_id = $1 AND l.tenant_id = $2 AND l.link_type = 'supersedes' ORDER BY l.id LIMIT 1`,
      [id, scope.tenantId],
    );
    return rows[0] ? Number(rows[0].dst_id) : null;
  }

  /** Accepts (in force from now) or rejects (soft-deleted) a live proposal; false if it no longer is one. */
  async settle(tx: Tx, tenantId: string, id: number, decision: ReviewDecision): Promise<boolean> {
    const result = await tx.query(
      decision === 'accept'
        ? `UPDATE memories SET review_state = 'accepted', updated_at = now()
            WHERE id = $1 AND tenant_id = $2 AND review_state = 'proposed' AND deleted_at IS NULL`
        : `UPDATE memories SET review_state = 'rejected', deleted_at = now(), updated_at = now()
            WHERE id = $1 AND tenant_id = $2 AND review_state = 'proposed' AND deleted_at IS NULL`,
      [id, tenantId],
    );
    return result.rowCount > 0;
  }
}
