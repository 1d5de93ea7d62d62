import { Injectable } from '@nestjs/common';
import { type Tx } from '@app/persistence';

/**
 * The per-tenant term statistics recall's BM25 text leg reads (migration 1763700000017): memory
 * writes append deltas through triggers; these fold them into the totals or recount them.
 */
@Injectable()
export class TextStatisticsRepository {
  /** Folds up to `batch` pending deltas; 0 when none are pending or another fold holds the lock. */
  async fold(tx: Tx, batch: number): Promise<number> {
    const { rows } = await tx.query<{ folded: number }>(`SELECT text_stats_fold($1) AS folded`, [batch]);
    return Number(rows[0].folded);
  }

  /** Recounts one tenant's statistics from its rows (null: every tenant). */
  async rebuild(tx: Tx, tenantId: string | null): Promise<void> {
    await tx.query(`SELECT text_stats_rebuild($1::uuid)`, [tenantId]);
  }
}
