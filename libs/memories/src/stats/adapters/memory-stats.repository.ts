import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import { liveMemorySql } from '../../read-model/memory-row';
import { visibleMemoryBranchesSql } from '../../read-model/memory-visibility.sql';
import type { DailyCount, MemoryActivity, MemoryStats, NamedCount } from '../domain/memory-stats';

/** The branches of the caller's visible live memories, each row tagged with how it is reached. */
function visibleRows(columns: string): string {
  const branches = visibleMemoryBranchesSql({ tenant: '$1', user: '$2', where: liveMemorySql('m') });
  const reach = ['own', 'team', 'shared', 'shared', 'admin'];
  return branches
    .map((branch, i) => `SELECT ${columns}, '${reach[i]}' AS reach ${branch}`)
    .join(' UNION ALL ');
}

/** Upstream's importance buckets (claude-memory-mcp's `/api/stats`). */
export const IMPORTANCE_BUCKETS = ['0.0-0.2', '0.2-0.4', '0.4-0.6', '0.6-0.8', '0.8-1.0'] as const;

interface StatsRow {
  total: number;
  by_category: Record<string, number>;
  by_importance: Record<string, number>;
  recent_activity: { date: string; created: number; updated: number }[];
  shared_with_me: number;
  shared_by_me: number;
}

/**
 * Aggregates over exactly what the caller may read: the same disjoint branches as the memory list
 * (own, team, shared, admin), each read from its index, in one statement. Row-level security
 * applies underneath as for every read.
 */
@Injectable()
export class MemoryStatsRepository {
  async stats(scope: TenantScope, tx: Tx): Promise<MemoryStats> {
    const { rows } = await tx.query<StatsRow>(
      `WITH visible AS MATERIALIZED (${visibleRows('m.category, m.importance, m.created_at, m.updated_at')}),
            since AS (SELECT ((now() AT TIME ZONE 'UTC')::date - 29) AS day)
       SELECT
         (SELECT count(*)::int FROM visible) AS total,
         (SELECT coalesce(jsonb_object_agg(category, n), '{}') FROM
            (SELECT category, count(*)::int AS n FROM visible GROUP BY category ORDER BY n DESC, category) c) AS by_category,
         (SELECT jsonb_build_object(
                   '0.0-0.2', count(*) FILTER (WHERE importance < 0.2),
                   '0.2-0.4', count(*) FILTER (WHERE importance >= 0.2 AND importance < 0.4),
                   '0.4-0.6', count(*) FILTER (WHERE importance >= 0.4 AND importance < 0.6),
                   '0.6-0.8', count(*) FILTER (WHERE importance >= 0.6 AND importance < 0.8),
                   '0.8-1.0', count(*) FILTER (WHERE importance >= 0.8)) FROM visible) AS by_importance,
         (SELECT coalesce(jsonb_agg(jsonb_build_object('date', day, 'created', created, 'updated', updated) ORDER BY day), '[]')
            FROM (SELECT day, count(*) FILTER (WHERE kind = 'c')::int AS created, count(*) FILTER (WHERE kind = 'u')::int AS updated
                    FROM (SELECT (created_at AT TIME ZONE 'UTC')::date AS day, 'c' AS kind FROM visible, since
                           WHERE (created_at AT TIME ZONE 'UTC')::date >= since.day
                          UNION ALL
                          SELECT (updated_at AT TIME ZONE 'UTC')::date, 'u' FROM visible, since
                           WHERE (updated_at AT TIME ZONE 'UTC')::date >= since.day
                             AND updated_at > created_at + interval '1 second') events
                   GROUP BY day) days) AS recent_activity,
         (SELECT count(*)::int FROM visible WHERE reach = 'shared') AS shared_with_me,
         (SELECT count(*)::int FROM memory_shares s JOIN memories m ON m.id = s.memory_id
           WHERE s.owner_id = $2 AND s.tenant_id = $1 AND ${liveMemorySql('m')}) AS shared_by_me`,
      [scope.tenantId, scope.userId],
    );
    const row = rows[0];
    return {
      total: row.total,
      byCategory: row.by_category,
      byImportance: Object.fromEntries(IMPORTANCE_BUCKETS.map((b) => [b, row.by_importance[b] ?? 0])),
      recentActivity: row.recent_activity,
      sharedWithMe: row.shared_with_me,
      sharedByMe: row.shared_by_me,
    };
  }

  /** Categories of the visible memories with their counts, by name. */
  async categories(scope: TenantScope, tx: Tx): Promise<NamedCount[]> {
    const { rows } = await tx.query<NamedCount>(
      `SELECT category AS name, count(*)::int AS count FROM (${visibleRows('m.category')}) v
        GROUP BY category ORDER BY category`,
      [scope.tenantId, scope.userId],
    );
    return rows;
  }

  /** Tags of the visible memories with their counts, most used first. */
  async tags(scope: TenantScope, tx: Tx): Promise<NamedCount[]> {
    const { rows } = await tx.query<NamedCount>(
      `SELECT tag AS name, count(*)::int AS count FROM (${visibleRows('m.tags')}) v, unnest(v.tags) AS tag
        GROUP BY tag ORDER BY count(*) DESC, tag`,
      [scope.tenantId, scope.userId],
    );
    return rows;
  }

  /**
   * Live memories the caller can read created in the last `days` UTC days (today included), per
   * day and category and per day and author; days without any are absent.
   */
  async activity(scope: TenantScope, tx: Tx, days: number): Promise<MemoryActivity> {
    const { rows } = await tx.query<{ since: string; by_category: DailyCount[]; by_owner: DailyCount[] }>(
      `WITH since AS (SELECT ((now() AT TIME ZONE 'UTC')::date - ($3::int - 1)) AS day),
            created AS MATERIALIZED (
              SELECT (v.created_at AT TIME ZONE 'UTC')::date AS day, v.category, u.username AS owner
                FROM (${visibleRows('m.category, m.created_at, m.owner_id')}) v
                JOIN users u ON u.id = v.owner_id, since
               WHERE (v.created_at AT TIME ZONE 'UTC')::date >= since.day)
       SELECT (SELECT day::text FROM since) AS since,
         (SELECT coalesce(jsonb_agg(jsonb_build_object('date', day, 'name', category, 'count', n) ORDER BY day, category), '[]')
            FROM (SELECT day, category, count(*)::int AS n FROM created GROUP BY day, category) c) AS by_category,
         (SELECT coalesce(jsonb_agg(jsonb_build_object('date', day, 'name', owner, 'count', n) ORDER BY day, owner), '[]')
            FROM (SELECT day, owner, count(*)::int AS n FROM created GROUP BY day, owner) o) AS by_owner`,
      [scope.tenantId, scope.userId, days],
    );
    const row = rows[0];
    return { since: row.since, byCategory: row.by_category, byOwner: row.by_owner };
  }
}
