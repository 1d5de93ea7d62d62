import { Injectable } from '@nestjs/common';
import { liveMemorySql } from '@app/memories';
import { type TenantScope, type Tx } from '@app/persistence';
import { THREAD_TAG_PREFIXES } from '../domain/thread-context';

export interface ThreadNeighbours {
  readonly memoryId: number;
  /** The owner's memories just before and after it in the same thread, or null at an end. */
  readonly previousId: number | null;
  readonly nextId: number | null;
}

const threadTagSql = THREAD_TAG_PREFIXES.map((p) => `t LIKE '${p}%'`).join(' OR ');

/** One side's neighbour: the owner's nearest live memory of the thread before or after `h`. */
const neighbourSql = (direction: 'before' | 'after') => `
  SELECT n.id FROM memories n
   WHERE n.owner_id = h.owner_id AND n.tenant_id = h.tenant_id AND n.tags @> ARRAY[th.tag]
     AND ${liveMemorySql('n')}
     AND (n.created_at, n.id) ${direction === 'before' ? '<' : '>'} (h.created_at, h.id)
   ORDER BY n.created_at ${direction === 'before' ? 'DESC' : 'ASC'}, n.id ${direction === 'before' ? 'DESC' : 'ASC'}
   LIMIT 1`;

/**
 * Where each recalled memory sits in its thread: memories of one conversation, session or import
 * batch carry a `thread:<id>` or `session:<id>` tag (session capture adds the latter), and their
 * order is their creation order. Runs inside the caller's RLS transaction, so a neighbour the
 * caller may not read is skipped as if it did not exist.
 */
@Injectable()
export class MemoryNeighbourRepository {
  async around(scope: TenantScope, tx: Tx, ids: readonly number[]): Promise<ThreadNeighbours[]> {
    if (ids.length === 0) return [];
    const { rows } = await tx.query<{ id: string; previous_id: string | null; next_id: string | null }>(
      `SELECT h.id, p.id AS previous_id, n.id AS next_id
         FROM memories h
         CROSS JOIN LATERAL (SELECT min(t) AS tag FROM unnest(h.tags) t WHERE ${threadTagSql}) th
         LEFT JOIN LATERAL (${neighbourSql('before')}) p ON true
         LEFT JOIN LATERAL (${neighbourSql('after')}) n ON true
        WHERE h.id = ANY($1::bigint[]) AND h.tenant_id = $2 AND th.tag IS NOT NULL`,
      [ids, scope.tenantId],
    );
    return rows.map((r) => ({
      memoryId: Number(r.id),
      previousId: r.previous_id === null ? null : Number(r.previous_id),
      nextId: r.next_id === null ? null : Number(r.next_id),
    }));
  }
}
