import { Injectable } from '@nestjs/common';
import { liveMemorySql, visibleMemorySql } from '@app/memories';
import { type TenantScope, type Tx } from '@app/persistence';

export type StartupOrder = 'importance' | 'recency';

const ORDER_BY: Record<StartupOrder, string> = {
  importance: 'm.importance DESC, m.updated_at DESC, m.id DESC',
  recency: 'm.updated_at DESC, m.id DESC',
};

/**
 * Ids for a session's startup context: the live memories the caller may read (`visibleMemorySql`:
 * own, team-visible, shared directly or by tag, all of the tenant's for an admin), in one project
 * plus the project-less ones when a project is given, ordered by importance or recency.
 */
@Injectable()
export class StartupContextRepository {
  async topIds(
    scope: TenantScope,
    tx: Tx,
    query: { order: StartupOrder; project: string | undefined; limit: number },
  ): Promise<number[]> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT m.id FROM memories m
        WHERE m.tenant_id = $1 AND ${visibleMemorySql('m', '$2')} AND ${liveMemorySql('m')}
          AND ($3::text IS NULL OR m.project = $3 OR m.project IS NULL)
        ORDER BY ${ORDER_BY[query.order]}
        LIMIT $4`,
      [scope.tenantId, scope.userId, query.project ?? null, query.limit],
    );
    return rows.map((row) => Number(row.id));
  }
}
