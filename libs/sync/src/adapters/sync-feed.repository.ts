import { visibleMemoryBranchesSql, visibleMemorySql, toMemory, type MemoryRow } from '@app/memories';
import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { SyncedMemory, SyncHistoryState, SyncPosition, SyncTombstone } from '../domain/sync';
import type { SyncReadFrom } from '../domain/sync-feed';

/** One change of a page: the memory as the caller sees it now, or a tombstone when it does not. */
export type SyncFeedItem =
  | { readonly kind: 'memory'; readonly memory: SyncedMemory }
  | { readonly kind: 'tombstone'; readonly tombstone: SyncTombstone };

export interface SyncFeedRead {
  readonly state: SyncHistoryState;
  readonly serverTime: string;
  readonly items: SyncFeedItem[];
  /** The last change the page covered (several changes of one memory make one item). */
  readonly last: SyncPosition | null;
  readonly hasMore: boolean;
  /** Read on a standby (a read replica), whose snapshot may be older than what the cursor saw. */
  readonly standby: boolean;
}

interface ItemRow extends Omit<MemoryRow, 'owner'> {
  change_seq: string | number;
  visible: boolean;
  owner: string | null;
  removed_at: string;
}

interface FeedRow {
  horizon: string;
  next_xid: string;
  standby: boolean;
  fetched: string;
  last: { pos: string | number; id: string | number } | null;
  items: ItemRow[];
  tenant_state: { min_valid_seq: string | number; epoch: number } | null;
  user_min_valid_seq: string | null;
  server_time: string;
}

/** Changes after the cursor that the read may hand out: settled (below the horizon) and not yet reflected. */
const after = (pos: string, id: string) => `(${pos}, ${id}) > ($3, $4) AND ${pos} < (SELECT horizon FROM h)`;
const heardAfter = `${after('xid', 'memory_id')} AND xid >= coalesce($5::bigint, (SELECT horizon FROM h))`;
const VISIBLE = visibleMemorySql('m', '$2');
/**
 * What the caller sees, as disjoint branches that each walk their own index in change order (own
 * rows, teammates' team rows, shares, an admin's rest of the tenant): a caller who sees 1% of the
 * tenant does not filter the other 99% row by row.
 */
const CHANGED_BRANCHES = visibleMemoryBranchesSql({
  tenant: '$1',
  user: '$2',
  where: `${after('m.change_seq', 'm.id')}
            AND (m.change_seq, m.id) <= ((SELECT pos FROM cut), (SELECT id FROM cut))
            AND NOT (m.owner_id = $2 AND m.change_seq < $6)`,
});

/**
 * The whole page in ONE statement, so the horizon, the rows, the audience changes, the current
 * state of each memory and the history state share one snapshot.
 *
 * - `heard`: audience changes addressed to the caller, its tenant, or (admin keys) the admins.
 * - `changed`: rows the caller sees now whose last change is after the cursor (row-level security
 *   says the same underneath), bounded by the last audience change fetched when that list was cut
 *   short, so a page never walks past what it can return.
 * - `page`: the first `limit` changes of both, in position order (each list fetched `limit + 1`
 *   deep, so `fetched > limit` says more follows); one item per memory: its row if the caller sees
 *   it now, else a tombstone.
 */
const FEED_SQL = `
  WITH h AS MATERIALIZED (
         SELECT sync_horizon() AS horizon, pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS next_xid),
       heard AS MATERIALIZED (
         SELECT c.id, c.pos, c.changed_at FROM (
           (SELECT memory_id AS id, xid AS pos, changed_at FROM sync_audience_changes
             WHERE user_id = $2 AND tenant_id = $1 AND ${heardAfter}
             ORDER BY xid, memory_id LIMIT $7)
           UNION ALL
           (SELECT memory_id, xid, changed_at FROM sync_audience_changes
             WHERE tenant_id = $1 AND audience = 'tenant' AND ${heardAfter}
             ORDER BY xid, memory_id LIMIT $7)
           UNION ALL
           (SELECT memory_id, xid, changed_at FROM sync_audience_changes
             WHERE tenant_id = $1 AND audience = 'admins' AND app_is_admin() AND ${heardAfter}
             ORDER BY xid, memory_id LIMIT $7)) c
          ORDER BY c.pos, c.id LIMIT $7),
       cut AS MATERIALIZED (
         SELECT coalesce(l.pos, (SELECT horizon FROM h)) AS pos, coalesce(l.id, 0) AS id
           FROM (SELECT 1) one
           LEFT JOIN (SELECT pos, id FROM heard WHERE (SELECT count(*) FROM heard) = $7
                       ORDER BY pos DESC, id DESC LIMIT 1) l ON true),
       changed AS MATERIALIZED (
         SELECT c.id, c.pos FROM (${CHANGED_BRANCHES.map(
           (branch) => `(SELECT m.id, m.change_seq AS pos ${branch} ORDER BY m.change_seq, m.id LIMIT $7)`,
         ).join(' UNION ALL ')}) c
          ORDER BY c.pos, c.id LIMIT $7),
       page AS MATERIALIZED (
         SELECT c.id, c.pos FROM (SELECT id, pos FROM changed UNION ALL SELECT id, pos FROM heard) c
          ORDER BY c.pos, c.id LIMIT $8)
  SELECT
    (SELECT horizon FROM h) AS horizon,
    (SELECT next_xid FROM h) AS next_xid,
    pg_is_in_recovery() AS standby,
    (SELECT count(*) FROM changed) + (SELECT count(*) FROM heard) AS fetched,
    (SELECT json_build_object('pos', pos, 'id', id) FROM page ORDER BY pos DESC, id DESC LIMIT 1) AS last,
    (SELECT coalesce(json_agg(i ORDER BY i.change_seq, i.id), '[]'::json) FROM (
       SELECT g.id, g.change_seq, m.id IS NOT NULL AS visible, m.content, m.category, m.tags,
              m.expanded_keywords, m.importance, m.project, m.is_sensitive, m.visibility, m.review_state, u.username AS owner,
              ${isoTimestamp('m.created_at')} AS created_at, ${isoTimestamp('m.updated_at')} AS updated_at,
              ${isoTimestamp('m.deleted_at')} AS deleted_at, ${isoTimestamp('m.expires_at')} AS expires_at,
              ${isoTimestamp('coalesce(g.changed_at, statement_timestamp())')} AS removed_at
         FROM (SELECT p.id, max(p.pos) AS change_seq,
                      (SELECT max(x.changed_at) FROM heard x WHERE x.id = p.id) AS changed_at
                 FROM page p GROUP BY p.id) g
         LEFT JOIN memories m ON m.id = g.id AND m.tenant_id = $1 AND ${VISIBLE}
         LEFT JOIN users u ON u.id = m.owner_id) i) AS items,
    (SELECT row_to_json(t) FROM (SELECT min_valid_seq, epoch FROM sync_tenant_state WHERE tenant_id = $1) t)
      AS tenant_state,
    (SELECT min_valid_seq FROM sync_state WHERE user_id = $2 AND tenant_id = $1) AS user_min_valid_seq,
    ${isoTimestamp('clock_timestamp()')} AS server_time`;

const toItem = (row: ItemRow): SyncFeedItem =>
  row.visible
    ? {
        kind: 'memory',
        memory: { ...toMemory({ ...row, owner: row.owner ?? '' }), changeSeq: Number(row.change_seq) },
      }
    : {
        kind: 'tombstone',
        tombstone: { id: Number(row.id), deletedAt: row.removed_at, changeSeq: Number(row.change_seq) },
      };

/** SQL for the cursor feed: what the caller can see (own, team, shared, admins: the tenant). */
export class SyncFeedRepository {
  async read(scope: TenantScope, tx: Tx, from: SyncReadFrom, limit: number): Promise<SyncFeedRead> {
    const { rows } = await tx.query<FeedRow>(
      FEED_SQL,
      [
        scope.tenantId,
        scope.userId,
        from.after.xid,
        from.after.memoryId,
        from.recordsFrom,
        from.ownRowsFrom,
        limit + 1,
        limit,
      ],
      // Planning this statement (five branches under the memories policies) costs more than running it.
      { prepared: true },
    );
    const row = rows[0];
    const tenantMin = Number(row.tenant_state?.min_valid_seq ?? 0);
    return {
      state: {
        epoch: row.tenant_state?.epoch ?? 1,
        minValidSeq: Math.max(tenantMin, Number(row.user_min_valid_seq ?? 0)),
        nextXid: Number(row.next_xid),
        horizon: Number(row.horizon),
      },
      serverTime: row.server_time,
      items: row.items.map(toItem),
      last: row.last && { xid: Number(row.last.pos), memoryId: Number(row.last.id) },
      hasMore: Number(row.fetched) > limit,
      standby: row.standby,
    };
  }
}
