import { Injectable } from '@nestjs/common';
import { type Tx } from '@app/persistence';

/**
 * The per-tenant usage counters quotas are checked against (migration 1763700000025): memory writes
 * append deltas through triggers; these fold them into the totals or recount them.
 */
@Injectable()
export class MemoryUsageRepository {
  /** Folds up to `batch` pending deltas; 0 when none are pending or another fold holds the lock. */
  async fold(tx: Tx, batch: number): Promise<number> {
    const { rows } = await tx.query<{ folded: number }>(`SELECT memory_usage_fold($1) AS folded`, [batch]);
    return Number(rows[0].folded);
  }

  /** Recounts one tenant's usage from its rows (null: every tenant). */
  async rebuild(tx: Tx, tenantId: string | null): Promise<void> {
    await tx.query(`SELECT memory_usage_rebuild($1::uuid)`, [tenantId]);
  }
}
