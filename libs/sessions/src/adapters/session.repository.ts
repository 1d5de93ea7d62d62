import { Injectable } from '@nestjs/common';
import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { Session, SessionStatus } from '../domain/session';

interface SessionRow {
  id: string;
  agent: string;
  project: string | null;
  cwd: string | null;
  git_remote: string | null;
  git_branch: string | null;
  git_commit: string | null;
  status: SessionStatus;
  summary: string | null;
  started_at: string;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
  owner: string;
}

const COLUMNS = `s.id, s.agent, s.project, s.cwd, s.git_remote, s.git_branch, s.git_commit, s.status, s.summary,
  ${isoTimestamp('s.started_at')} AS started_at,
  CASE WHEN s.ended_at IS NULL THEN NULL ELSE ${isoTimestamp('s.ended_at')} END AS ended_at,
  ${isoTimestamp('s.created_at')} AS created_at, ${isoTimestamp('s.updated_at')} AS updated_at,
  (SELECT u.username FROM users u WHERE u.id = s.user_id) AS owner`;

/**
 * The user reads session `s`: their own, any of the tenant's for an admin (`admin`: a boolean
 * parameter), and a teammate's when the tenant turned team session visibility on. The same rule as
 * the sessions read policies (migrations 1763700000011 and 1763700000013).
 */
export function readableSessionSql(s: string, user: string, admin: string): string {
  return `(${s}.user_id = ${user} OR ${admin}::boolean OR app_team_sessions_visible())`;
}

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  agent: row.agent,
  project: row.project,
  cwd: row.cwd,
  gitRemote: row.git_remote,
  gitBranch: row.git_branch,
  gitCommit: row.git_commit,
  status: row.status,
  summary: row.summary,
  startedAt: row.started_at,
  endedAt: row.ended_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  owner: row.owner,
});

/** A session as stored: text already screened, project already derived. */
export interface SessionRecord {
  readonly id: string | null;
  readonly agent: string;
  readonly project: string | null;
  readonly cwd: string | null;
  readonly gitRemote: string | null;
  readonly gitBranch: string | null;
  readonly gitCommit: string | null;
  readonly startedAt: string | null;
}

export interface SessionUpdate {
  readonly status: SessionStatus | null;
  readonly summary: string | null;
  readonly endedAt: string | null;
}

/**
 * SQL of the `sessions` table. Reads see the caller's own sessions, every session of the tenant for
 * an admin, and teammates' sessions when the tenant allows it (`readableSessionSql`, as the
 * row-level security policies do); writes touch only the caller's own.
 */
@Injectable()
export class SessionRepository {
  /**
   * Inserts the session, or nothing when the id exists (`null`: look the existing one up). With
   * `maxPerDay` (> 0) the same statement inserts only while the tenant has started fewer sessions
   * today (UTC); `null` may then also mean the quota refused it.
   */
  async insert(
    scope: TenantScope,
    tx: Tx,
    record: SessionRecord,
    maxPerDay?: number,
  ): Promise<Session | null> {
    const row = `coalesce($3::uuid, gen_random_uuid()), $1::uuid, $2::uuid, $4::text, $5::text, $6::text,
                 $7::text, $8::text, coalesce($9::timestamptz, now()), $10::text`;
    const { rows } = await tx.query<SessionRow>(
      `WITH s AS (
         INSERT INTO sessions (id, tenant_id, user_id, agent, project, cwd, git_remote, git_branch, started_at, git_commit)
         ${maxPerDay ? `SELECT ${row} WHERE sessions_started_today($1::uuid) < $11::bigint` : `VALUES (${row})`}
         ON CONFLICT (id, tenant_id) DO NOTHING
         RETURNING *)
       SELECT ${COLUMNS} FROM s`,
      [
        scope.tenantId,
        scope.userId,
        record.id,
        record.agent,
        record.project,
        record.cwd,
        record.gitRemote,
        record.gitBranch,
        record.startedAt,
        record.gitCommit,
        ...(maxPerDay ? [maxPerDay] : []),
      ],
    );
    return rows[0] ? toSession(rows[0]) : null;
  }

  /** Whether the caller's tenant scopes what capture stores on a feature branch to it (migration 1763700000051). */
  async captureBranchScope(tx: Tx): Promise<boolean> {
    const { rows } = await tx.query<{ on: boolean }>(`SELECT app_capture_branch_scope() AS on`);
    return rows[0]?.on === true;
  }

  /** Sessions the caller's tenant started since 00:00 UTC. */
  async startedToday(scope: TenantScope, tx: Tx): Promise<number> {
    const { rows } = await tx.query<{ n: string }>(`SELECT sessions_started_today($1) AS n`, [
      scope.tenantId,
    ]);
    return Number(rows[0].n);
  }

  /** The caller's own session. */
  async findOwn(scope: TenantScope, tx: Tx, id: string): Promise<Session | null> {
    const { rows } = await tx.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions s WHERE s.id = $3 AND s.tenant_id = $1 AND s.user_id = $2`,
      [scope.tenantId, scope.userId, id],
    );
    return rows[0] ? toSession(rows[0]) : null;
  }

  /** A session the caller may read (`readableSessionSql`). */
  async findReadable(scope: TenantScope, tx: Tx, id: string): Promise<Session | null> {
    const { rows } = await tx.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions s
        WHERE s.id = $3 AND s.tenant_id = $1 AND ${readableSessionSql('s', '$2', '$4')}`,
      [scope.tenantId, scope.userId, id, isAdmin(scope)],
    );
    return rows[0] ? toSession(rows[0]) : null;
  }

  /**
   * Ends, re-opens or summarises the caller's own session. A status other than `active` sets
   * `ended_at` (the given time, else the one it had, else now); `active` clears it.
   */
  async update(scope: TenantScope, tx: Tx, id: string, change: SessionUpdate): Promise<Session | null> {
    const { rows } = await tx.query<SessionRow>(
      `UPDATE sessions s SET
          status = coalesce($4, s.status),
          summary = coalesce($5, s.summary),
          ended_at = CASE
            WHEN coalesce($4, s.status) = 'active' THEN NULL
            ELSE coalesce($6::timestamptz, s.ended_at, now()) END,
          updated_at = now()
        WHERE s.id = $3 AND s.tenant_id = $1 AND s.user_id = $2
        RETURNING ${COLUMNS}`,
      [scope.tenantId, scope.userId, id, change.status, change.summary, change.endedAt],
    );
    return rows[0] ? toSession(rows[0]) : null;
  }

  /** The caller's own sessions, or (`team`) every session they may read, newest first. */
  async list(
    scope: TenantScope,
    tx: Tx,
    query: { project: string | null; since: string | null; limit: number; team: boolean },
  ): Promise<Session[]> {
    const { rows } = await tx.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions s
        WHERE s.tenant_id = $1
          AND (CASE WHEN $6::boolean THEN ${readableSessionSql('s', '$2', '$7')} ELSE s.user_id = $2 END)
          AND ($3::text IS NULL OR s.project = $3)
          AND ($4::timestamptz IS NULL OR s.started_at >= $4)
        ORDER BY s.started_at DESC, s.id
        LIMIT $5`,
      [scope.tenantId, scope.userId, query.project, query.since, query.limit, query.team, isAdmin(scope)],
    );
    return rows.map(toSession);
  }

  /**
   * Ended sessions with a summary that the caller may read, of one project (every project when
   * null), most recently ended first.
   */
  async listSummarised(
    scope: TenantScope,
    tx: Tx,
    query: { project: string | null; limit: number },
  ): Promise<Session[]> {
    const { rows } = await tx.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions s
        WHERE s.tenant_id = $1 AND ${readableSessionSql('s', '$2', '$3')}
          AND s.ended_at IS NOT NULL AND btrim(coalesce(s.summary, '')) <> ''
          AND ($4::text IS NULL OR s.project = $4)
        ORDER BY s.ended_at DESC, s.id DESC
        LIMIT $5`,
      [scope.tenantId, scope.userId, isAdmin(scope), query.project, query.limit],
    );
    return rows.map(toSession);
  }

  /**
   * The caller's own session for the extraction job, or null when it is gone or its user has
   * been disabled since (a disabled user's sessions capture nothing more).
   */
  async findForExtraction(scope: TenantScope, tx: Tx, id: string): Promise<Session | null> {
    const { rows } = await tx.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions s JOIN users u ON u.id = s.user_id AND u.disabled_at IS NULL
        WHERE s.id = $3 AND s.tenant_id = $1 AND s.user_id = $2`,
      [scope.tenantId, scope.userId, id],
    );
    return rows[0] ? toSession(rows[0]) : null;
  }

  /** Records that the extraction job has handled the session's events (not a change by the user). */
  async markExtracted(scope: TenantScope, tx: Tx, id: string): Promise<void> {
    await tx.query(
      `UPDATE sessions SET extracted_at = now() WHERE id = $3 AND tenant_id = $1 AND user_id = $2`,
      [scope.tenantId, scope.userId, id],
    );
  }
}

export const isAdmin = (scope: TenantScope): boolean => scope.scopes?.includes('admin') ?? false;
