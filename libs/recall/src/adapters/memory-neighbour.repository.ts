import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import { threadedRowSql, threadNeighboursFromSql } from './thread-neighbours.sql';

export interface ThreadNeighbours {
  readonly memoryId: number;
  /** The owner's memories just before and after it in the same thread, or null at an end. */
  readonly previousId: number | null;
  readonly nextId: number | null;
}

/**
 * Where each memory sits in its thread (see threadNeighboursFromSql), for the evaluation's fusion
 * tuning; recall itself reads neighbours with the ranking facts (RecallCandidateRepository).
 */
@Injectable()
export class MemoryNeighbourRepository {
  async around(
    scope: TenantScope,
    tx: Tx,
    ids: readonly number[],
    implicitWindowMs = 0,
  ): Promise<ThreadNeighbours[]> {
    if (ids.length === 0) return [];
    const { rows } = await tx.query<{ id: string; previous_id: string | null; next_id: string | null }>(
      `SELECT h.id, p.id AS previous_id, n.id AS next_id
         FROM ${threadNeighboursFromSql('memories', implicitWindowMs)}
        WHERE h.id = ANY($1::bigint[]) AND h.tenant_id = $2 AND ${threadedRowSql(implicitWindowMs)}`,
      [ids, scope.tenantId],
      { prepared: true },
    );
    return rows.map((r) => ({
      memoryId: Number(r.id),
      previousId: r.previous_id === null ? null : Number(r.previous_id),
      nextId: r.next_id === null ? null : Number(r.next_id),
    }));
  }
}
