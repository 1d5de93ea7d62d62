import { insertThen, isoTimestamp, type SqlStatement, type TenantScope, type Tx } from '@app/persistence';
import { MAINLINE_BRANCHES } from '../../domain/anchor';
import type { CodeEvent, NewCodeEvent } from '../domain/code-event';

interface CodeEventRow {
  id: string;
  repo: string;
  branch: string | null;
  before_commit: string | null;
  after_commit: string | null;
  merged: boolean;
  branch_deleted: boolean;
  changes: number;
  created_at: string;
  applied_at: string | null;
  anchors_changed: number | null;
  branch_memories: number | null;
}

const COLUMNS = `e.id, e.repo, e.branch, e.before_commit, e.after_commit, e.merged, e.branch_deleted, e.branch_memories,
  jsonb_array_length(e.changes) AS changes, ${isoTimestamp('e.created_at')} AS created_at,
  ${isoTimestamp('e.applied_at')} AS applied_at, e.anchors_changed`;

const toEvent = (row: CodeEventRow): CodeEvent => ({
  id: Number(row.id),
  repo: row.repo,
  branch: row.branch,
  before: row.before_commit,
  after: row.after_commit,
  merged: row.merged,
  branchDeleted: row.branch_deleted,
  changes: row.changes,
  createdAt: row.created_at,
  appliedAt: row.applied_at,
  anchorsChanged: row.anchors_changed,
  branchMemories: row.branch_memories,
});

/**
 * SQL of `code_events` (migration 1763700000050) and of what applying one does to the tenant's
 * `memory_anchors`. Recording runs as the reporting user; applying runs as the system (the worker).
 */
export class CodeEventRepository {
  /**
   * Inserts the event and, in the same statement, `followers` built on its id (`NEW_ROW`: its job);
   * with `last` the statement carries the commit too (one round trip).
   */
  async insert(
    scope: TenantScope,
    tx: Tx,
    event: NewCodeEvent,
    followers: readonly SqlStatement[] = [],
    options: { readonly last?: boolean } = {},
  ): Promise<CodeEvent> {
    const insert: SqlStatement = {
      sql: `INSERT INTO code_events (tenant_id, repo, branch, before_commit, after_commit, merged, changes, reported_by,
                                  branch_deleted, reported_by_admin)
            VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)
            RETURNING id, repo, branch, before_commit, after_commit, merged, branch_deleted, branch_memories,
                      jsonb_array_length(changes) AS changes, ${isoTimestamp('created_at')} AS created_at,
                      NULL::text AS applied_at, anchors_changed`,
      params: [
        scope.tenantId,
        event.repo,
        event.branch ?? null,
        event.before ?? null,
        event.after ?? null,
        event.merged,
        JSON.stringify(event.changes),
        scope.userId,
        event.branchDeleted,
        scope.scopes?.includes('admin') === true,
      ],
    };
    const [row] = await insertThen<CodeEventRow>(tx, insert, followers, null, { last: options.last });
    return toEvent(row);
  }

  async find(scope: TenantScope, tx: Tx, id: number): Promise<CodeEvent | null> {
    const { rows } = await tx.query<CodeEventRow>(
      `SELECT ${COLUMNS} FROM code_events e WHERE e.id = $1 AND e.tenant_id = $2`,
      [id, scope.tenantId],
    );
    return rows[0] ? toEvent(rows[0]) : null;
  }

  /**
   * Deletes up to `batch` applied events (every tenant) older than `days`, as the system; answers how
   * many. An anchor a deleted event made stale keeps its change's time, blob id and commit (its
   * `changed_event` becomes null). Events not applied yet are kept whatever their age.
   */
  async purgeApplied(tx: Tx, days: number, batch: number): Promise<number> {
    const { rows } = await tx.query<{ purged: number }>(
      `WITH doomed AS (
         SELECT id, tenant_id FROM code_events
          WHERE applied_at IS NOT NULL AND created_at < now() - make_interval(days => $1)
          ORDER BY id LIMIT $2
       ), unlinked AS (
         UPDATE memory_anchors a SET changed_event = NULL
           FROM doomed d WHERE a.changed_event = d.id AND a.tenant_id = d.tenant_id
       ), purged AS (
         DELETE FROM code_events e USING doomed d WHERE e.id = d.id AND e.tenant_id = d.tenant_id RETURNING 1
       )
       SELECT count(*)::int AS purged FROM purged`,
      [days, batch],
    );
    return rows[0].purged;
  }

  /**
   * Applies event `id` of `tenant` to the anchors of its repository, once (an applied event answers
   * null), in one statement; answers how many anchors changed. For each anchor on a reported path
   * (a renamed one: on the path before) written or verified before the event (`checked_at`) and not
   * already named by a later event:
   * - deleted → `orphaned`;
   * - the reported blob id equals the anchor's → `current` again (a revert, or a rename alone);
   * - renamed without a blob id on the anchor → moved, state kept;
   * - otherwise → `stale`, with the event, its time, the new blob id and the commit after.
   * A rename moves the anchor's path in every case. The last change of a path in the list wins.
   * Every anchor the event names remembers it (`seen_event`), changed or not, so events applied out
   * of order (a retried job) never undo a newer one.
   * Which anchors an event concerns: on the mainline (main, master, trunk, develop), with no branch
   * named, or a merge, the project's memories and those of that branch; on a feature branch, that
   * branch's memories only (a teammate's local work does not stale the team's knowledge).
   * A merge makes the branch's memories of that project the project's (`branch` cleared): the team's
   * and the reporter's own; a deleted branch soft-deletes (restorably) the reporter's own, and with an
   * admin key the team's too — never someone else's private memory. In the same statement.
   */
  async apply(tx: Tx, tenantId: string, id: number): Promise<number | null> {
    const { rows } = await tx.query<{ changed: number | null }>(
      `WITH e AS (
         SELECT id, tenant_id, repo, branch, merged, branch_deleted, after_commit, created_at, changes, reported_by,
                reported_by_admin,
                -- A change on the mainline (or a merge, or no branch named) is the project's; a change on
                -- a feature branch concerns that branch's memories only.
                (branch IS NULL OR merged OR branch = ANY ($3::text[])) AS mainline
           FROM code_events
          WHERE id = $1 AND tenant_id = $2 AND applied_at IS NULL FOR UPDATE),
       c AS (
         SELECT c.path, c.status, c.hash, c."from", c.n
           FROM e, ROWS FROM (jsonb_to_recordset(e.changes) AS (path text, status text, hash text, "from" text))
                   WITH ORDINALITY AS c(path, status, hash, "from", n)),
       hit AS (
         SELECT DISTINCT ON (a.id) a.id, c.path AS path,
                CASE WHEN c.status = 'deleted' THEN 'orphaned'
                     WHEN a.hash IS NOT NULL AND a.hash = c.hash THEN 'current'
                     WHEN c.status = 'renamed' AND a.hash IS NULL THEN a.state
                     ELSE 'stale' END AS state,
                c.hash
           FROM e
           JOIN memory_anchors a ON a.tenant_id = e.tenant_id AND a.repo = e.repo
           JOIN memories m ON m.id = a.memory_id
           JOIN c ON a.path = CASE WHEN c.status = 'renamed' THEN c."from" ELSE c.path END
          WHERE a.checked_at <= e.created_at AND (a.seen_event IS NULL OR a.seen_event < e.id)
            AND (m.branch = e.branch OR (e.mainline AND m.branch IS NULL))
          ORDER BY a.id, c.n DESC),
       said AS (
         SELECT h.*, CASE WHEN h.state = 'current' THEN NULL ELSE h.hash END AS changed_hash,
                (a.path <> h.path OR a.state <> h.state
                 OR a.changed_hash IS DISTINCT FROM CASE WHEN h.state = 'current' THEN NULL ELSE h.hash END) AS differs
           FROM hit h JOIN memory_anchors a ON a.id = h.id),
       moved AS (
         UPDATE memory_anchors a
            SET seen_event = e.id, path = h.path, state = h.state,
                changed_event = CASE WHEN NOT h.differs THEN a.changed_event WHEN h.state = 'current' THEN NULL ELSE e.id END,
                changed_at = CASE WHEN NOT h.differs THEN a.changed_at WHEN h.state = 'current' THEN NULL ELSE e.created_at END,
                changed_hash = h.changed_hash,
                changed_commit = CASE WHEN NOT h.differs THEN a.changed_commit WHEN h.state = 'current' THEN NULL
                                      ELSE e.after_commit END
           FROM said h, e
          WHERE a.id = h.id
         RETURNING h.differs),
       scoped AS (
         UPDATE memories m
            SET branch = CASE WHEN e.merged THEN NULL ELSE m.branch END,
                deleted_at = CASE WHEN e.branch_deleted THEN now() ELSE m.deleted_at END,
                updated_at = now()
           FROM e
          WHERE (e.merged OR e.branch_deleted) AND m.tenant_id = e.tenant_id AND m.project = e.repo
            AND m.branch = e.branch AND m.deleted_at IS NULL
            -- A merge promotes the team's memories of the branch and the reporter's own; a deleted
            -- branch drops the reporter's own, and with an admin key the team's too. Nobody's private
            -- memory is changed by someone else's event.
            AND (m.owner_id = e.reported_by
                 OR (m.visibility = 'team' AND (e.merged OR e.reported_by_admin)))
         RETURNING m.id)
       UPDATE code_events SET applied_at = now(), anchors_changed = (SELECT count(*) FROM moved WHERE differs),
                              branch_memories = CASE WHEN merged OR branch_deleted THEN (SELECT count(*) FROM scoped) END
        WHERE id = (SELECT id FROM e)
       RETURNING anchors_changed AS changed`,
      [id, tenantId, MAINLINE_BRANCHES],
    );
    return rows[0] ? rows[0].changed : null;
  }
}
