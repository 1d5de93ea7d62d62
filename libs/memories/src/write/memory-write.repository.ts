import { insertThen, type SqlStatement, type TenantScope, type Tx } from '@app/persistence';
import type { MemoryFilter, MemoryPatch, NewMemory, StoredMemory, Visibility } from '../domain/memory';
import { liveWithHashSql, memoryFilterSql, type TeamDuplicate } from '../read-model/memory-filter.sql';
import type { RowSecret } from '../read-model/memory-read.repository';

/** The owner's live memory with this content, which a new one with it would duplicate. */
function duplicateOf(scope: TenantScope, contentHash: Buffer): SqlStatement {
  return {
    sql: `SELECT id, category, importance, review_state FROM memories
           WHERE tenant_id = $1 AND owner_id = $2 AND content_hash = $3 AND deleted_at IS NULL
             AND NOT duplicates_hidden`,
    params: [scope.tenantId, scope.userId, contentHash],
  };
}

/**
 * The new row of `insertOrGetDuplicate`, parameters $1…$16, then `review` (its `review_state`), a
 * parameter after them.
 */
const plainRow = (
  review: string,
) => `VALUES (coalesce($10::bigint, nextval(pg_get_serial_sequence('memories', 'id'))), $1, $2, $3, $4, $5, $6, $7, $8,
               $9, $11::text IS NOT NULL, $11, $12, $13, $14,
               coalesce($15::timestamptz, now()), coalesce($16::timestamptz, $15::timestamptz, now()), ${review})`;

/** The same row only where `conditions` hold (the quota, the team guard). */
const checkedRow = (
  review: string,
  conditions: readonly string[],
) => `SELECT coalesce($10::bigint, nextval(pg_get_serial_sequence('memories', 'id'))), $1::uuid, $2::uuid,
               $3::text, $4::text, $5::text[], $6::text, $7::double precision, $8::text,
               $9::bytea, $11::text IS NOT NULL, $11::text, $12::integer, $13::text, $14::timestamptz,
               coalesce($15::timestamptz, now()), coalesce($16::timestamptz, $15::timestamptz, now()), ${review}
        WHERE ${conditions.join(' AND ')}`;

/** While the tenant stays within its quotas ($17 memories, $18 bytes; 0 = unlimited). */
const QUOTA_ALLOWS = `memory_quota_allows($1::uuid, $17::bigint, $18::bigint, octet_length($3::text))`;

/**
 * The lock every team store of a text takes for the rest of its transaction, on the tenant and the
 * text's hash (parameters $1, $2): two teammates storing the same text at once write one row. The
 * key is the one `team_duplicate_after_lock` (migration 1763700000058) takes; the two must agree.
 */
const TEAM_TEXT_LOCK = `SELECT pg_advisory_xact_lock(hashtextextended($1::uuid::text || encode($2::bytea, 'hex'), 0))`;

/**
 * The guard of a team store alone in its team: no teammate shares live team memories (then none
 * can have said the same either). Asked, as `team_duplicate_after_lock` asks it, as two probes of
 * `memories_team_owner_live`: an owner ordered before the caller, and one after. Read in the row's
 * statement, after `TEAM_TEXT_LOCK` (sent just before it) is held, so in a snapshot that sees a
 * teammate's store of the same text that committed while this one waited.
 */
const NO_TEAMMATES = `NOT EXISTS (SELECT 1 FROM memories m
                       WHERE m.tenant_id = $1::uuid AND m.visibility = 'team'
                         AND m.owner_id < $2::uuid AND m.deleted_at IS NULL)
        AND NOT EXISTS (SELECT 1 FROM memories m
                       WHERE m.tenant_id = $1::uuid AND m.visibility = 'team'
                         AND m.owner_id > $2::uuid AND m.deleted_at IS NULL)`;

/**
 * The guard of a team store whose caller looked for near restatements (parameter `$near`: the
 * meaning probe's candidates): no teammate's live, accepted, non-secret team memory has the same
 * text or is among the candidates. A probe by text (`memories_team_hash_live`) and, with candidates,
 * one by id; the caller's own memory with the text is the `ON CONFLICT`'s business. Read after
 * `TEAM_TEXT_LOCK`, as `NO_TEAMMATES` is.
 */
const noTeamDuplicate = (near: number) => `NOT EXISTS (SELECT 1 FROM memories m
                       WHERE m.tenant_id = $1::uuid AND m.content_hash = $9::bytea AND m.visibility = 'team'
                         AND m.deleted_at IS NULL AND m.owner_id <> $2::uuid AND m.review_state = 'accepted'
                         AND NOT m.is_sensitive)
        AND (cardinality($${near}::bigint[]) = 0
             OR NOT EXISTS (SELECT 1 FROM memories m
                       WHERE m.id = ANY ($${near}::bigint[]) AND m.tenant_id = $1::uuid AND m.visibility = 'team'
                         AND m.deleted_at IS NULL AND m.owner_id <> $2::uuid AND m.review_state = 'accepted'
                         AND NOT m.is_sensitive))`;

/**
 * How a new team memory's own statement checks for a teammate's duplicate, instead of the separate
 * check: `alone`, a caller no teammate shares team memories with as far as the process knows (the
 * meaning probe was skipped); `near`, a caller who probed, with the candidates found.
 */
export type TeamGuard = { readonly alone: true } | { readonly near: readonly number[] };

/** A proposed correction (parameter `$n`) starts `proposed`; any other row as the tenant's review rule says. */
const reviewStateSql = (n: number) =>
  `CASE WHEN $${n}::boolean THEN 'proposed' ELSE memory_initial_review($1::uuid, $13::text) END`;

/** The quotas a write is checked against (0 = unlimited). */
export interface MemoryQuota {
  readonly maxMemories: number;
  readonly maxMemoryBytes: number;
}

interface StoredRow {
  id: string;
  category: string;
  importance: number;
  review_state?: string;
}

const toStored = (row: StoredRow): StoredMemory => ({
  id: Number(row.id),
  category: row.category,
  importance: row.importance,
  ...(row.review_state === 'proposed' ? { reviewState: 'proposed' as const } : {}),
});

/**
 * The write side of memories' rows. Changes name the memory's owner (after the writer has checked
 * the caller's access); row-level security enforces the caller's rights again underneath.
 */
export class MemoryWriteRepository {
  /** A memory id drawn before the row exists: a secret is written under its memory's id first. */
  async reserveId(tx: Tx): Promise<number> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT nextval(pg_get_serial_sequence('memories', 'id')) AS id`,
    );
    return Number(rows[0].id);
  }

  /**
   * Inserts unless the owner already has live content with the same hash; `created` tells which.
   * A sensitive memory comes with its reserved `id` and where its secret is stored. With a `quota`
   * the same statement inserts only while the tenant stays within it; `created: false` with no
   * duplicate (`id` null) then means the quota refused the row. `followers` (built with `NEW_ROW`)
   * go in the same statement and write only with a new row. With `options.last` that statement
   * carries the commit, and `null` says it wrote nothing and could not tell why (a duplicate
   * committed while it waited, or the quota): run it again without `last`.
   */
  async insertOrGetDuplicate(
    scope: TenantScope,
    tx: Tx,
    memory: NewMemory & {
      visibility: Visibility;
      contentHash: Buffer;
      id?: number;
      secret?: RowSecret;
      /** A correction of a memory the caller may not change: stored for its owner's review. */
      proposed?: boolean;
    },
    quota?: MemoryQuota,
    followers: readonly SqlStatement[] = [],
    options: {
      readonly last?: boolean;
      /**
       * A new team memory written without the separate team-duplicate check: the row is written only
       * when, under the lock on the tenant and text, the guard finds no teammate sharing team
       * memories (`alone`) or no teammate's memory saying the same (`near`). Otherwise nothing is
       * written and no duplicate answered (with `last`: `null`), and the store runs again in steps.
       */
      readonly team?: TeamGuard;
    } = {},
  ): Promise<(StoredMemory & { created: boolean }) | { created: false; id: null } | null> {
    // A row the guard refused has nothing to answer: only the attempt that carries the commit, and
    // is made again in steps, may skip the separate check.
    const team = options.team;
    if (team && !options.last) throw new Error('the team guard needs a statement marked last');
    const quotaParams = quota ? [quota.maxMemories, quota.maxMemoryBytes] : [];
    const review = reviewStateSql(17 + quotaParams.length);
    const near = team && 'near' in team ? [team.near] : [];
    const guard = team ? ('near' in team ? noTeamDuplicate(18 + quotaParams.length) : NO_TEAMMATES) : null;
    const conditions = [...(quota ? [QUOTA_ALLOWS] : []), ...(guard ? [guard] : [])];
    const insert: SqlStatement = {
      sql: `INSERT INTO memories (id, tenant_id, owner_id, content, category, tags, expanded_keywords, importance, project,
                             content_hash, is_sensitive, secret_ref, secret_version, visibility, expires_at,
                             created_at, updated_at, review_state)
       OVERRIDING SYSTEM VALUE
       ${conditions.length > 0 ? checkedRow(review, conditions) : plainRow(review)}
       ON CONFLICT (owner_id, content_hash, tenant_id) WHERE deleted_at IS NULL AND NOT duplicates_hidden DO NOTHING
       RETURNING id, category, importance, review_state`,
      params: [
        scope.tenantId,
        scope.userId,
        memory.content,
        memory.category,
        memory.tags,
        memory.expandedKeywords,
        memory.importance,
        memory.project,
        memory.contentHash,
        memory.id ?? null,
        memory.secret?.ref ?? null,
        memory.secret?.version ?? null,
        memory.visibility,
        memory.expiresAt ?? null,
        memory.createdAt ?? null,
        memory.updatedAt ?? null,
        ...quotaParams,
        memory.proposed === true,
        ...near,
      ],
    };
    // The lock goes in the row's round trip, as a statement of its own: the row's statement then
    // takes its snapshot once the lock is held.
    const locked = team
      ? tx.query(TEAM_TEXT_LOCK, [scope.tenantId, memory.contentHash], { prepared: true, withNext: true })
      : null;
    const [, rows] = await Promise.all([
      locked,
      insertThen<StoredRow>(
        tx,
        insert,
        followers,
        duplicateOf(scope, memory.contentHash),
        // Planning this INSERT under the memories policies costs more than running it.
        { prepared: true, last: options.last },
      ),
    ]);
    if (rows[0]) return { ...toStored(rows[0]), created: rows[0].created };
    if (options.last) return null;
    // A duplicate committed while the INSERT waited on it is not in that statement's snapshot.
    const duplicate = duplicateOf(scope, memory.contentHash);
    const existing = await tx.query<StoredRow>(duplicate.sql, duplicate.params);
    if (!existing.rows[0]) return { created: false, id: null };
    return { ...toStored(existing.rows[0]), created: false };
  }

  /**
   * Under the transaction's lock on the tenant and `contentHash` (two teammates storing the same
   * text at once write one row), a teammate's live team memory that a new team memory of the caller
   * would repeat (`TeamDuplicateCheck1763700000058`), and whether any teammate shares team memories
   * (a store that did not look for near restatements learns here that it has to). One statement.
   */
  async teamDuplicate(
    scope: TenantScope,
    tx: Tx,
    contentHash: Buffer,
    near: readonly number[],
  ): Promise<{ duplicate: TeamDuplicate | null; teammates: boolean }> {
    const { rows } = await tx.query<{
      id: string | null;
      category: string;
      importance: number;
      content: string;
      exact: boolean;
      teammates: boolean;
    }>(
      `SELECT id, category, importance, content, exact, teammates FROM team_duplicate_after_lock($1, $2, $3, $4)`,
      [scope.tenantId, scope.userId, contentHash, near],
      { prepared: true },
    );
    const row = rows[0];
    if (!row) throw new Error('team_duplicate_after_lock answers one row');
    const duplicate =
      row.id === null
        ? null
        : {
            id: Number(row.id),
            category: row.category,
            importance: row.importance,
            content: row.content,
            exact: row.exact,
          };
    return { duplicate, teammates: row.teammates };
  }

  /** Records that the caller stored what `memoryId` already says (once per caller and memory). */
  async endorse(scope: TenantScope, tx: Tx, memoryId: number): Promise<void> {
    await tx.query(
      `INSERT INTO memory_endorsements (tenant_id, memory_id, user_id) VALUES ($1, $3, $2)
       ON CONFLICT (memory_id, user_id, tenant_id) DO UPDATE SET last_at = now()`,
      [scope.tenantId, scope.userId, memoryId],
    );
  }

  /** The owner's row whether live or soft-deleted, locked for a state change. */
  async lockOwned(
    scope: TenantScope,
    tx: Tx,
    id: number,
  ): Promise<{ content: string; deleted: boolean; contentHash: Buffer } | null> {
    const { rows } = await tx.query<{ content: string; deleted: boolean; content_hash: Buffer }>(
      `SELECT content, deleted_at IS NOT NULL AS deleted, content_hash FROM memories
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 FOR UPDATE`,
      [id, scope.tenantId, scope.userId],
    );
    const row = rows[0];
    return row ? { content: row.content, deleted: row.deleted, contentHash: row.content_hash } : null;
  }

  /**
   * Changes a live memory of the owner `scope`. With `bytesQuota` the same statement changes it only
   * while the tenant's content stays within that many bytes after growing by `growth`: false then
   * (for a row the caller has locked) means the quota refused the change.
   */
  async update(
    scope: TenantScope,
    tx: Tx,
    id: number,
    patch: MemoryPatch & { contentHash?: Buffer; secret?: RowSecret | null },
    bytesQuota?: { readonly maxMemoryBytes: number; readonly growth: number },
  ): Promise<boolean> {
    const sets: string[] = [];
    const params: unknown[] = [id, scope.tenantId, scope.userId];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (patch.content !== undefined) set('content', patch.content);
    if (patch.contentHash !== undefined) {
      set('content_hash', patch.contentHash);
      // The caller was already refused every duplicate it can see; one it cannot see leaves this
      // row out of the uniqueness rule instead of answering differently (migration 1763700000035).
      sets.push(`duplicates_hidden = memory_content_taken($3, $${params.length}, $1)`);
    }
    if (patch.category !== undefined) set('category', patch.category);
    if (patch.tags !== undefined) set('tags', patch.tags);
    if (patch.expandedKeywords !== undefined) set('expanded_keywords', patch.expandedKeywords);
    if (patch.importance !== undefined) set('importance', patch.importance);
    if (patch.visibility !== undefined) set('visibility', patch.visibility);
    if (patch.expiresAt !== undefined) set('expires_at', patch.expiresAt);
    if (patch.secret !== undefined) {
      set('is_sensitive', patch.secret !== null);
      set('secret_ref', patch.secret?.ref ?? null);
      set('secret_version', patch.secret?.version ?? null);
    }
    let quotaCheck = '';
    if (bytesQuota) {
      params.push(bytesQuota.maxMemoryBytes, bytesQuota.growth);
      quotaCheck = ` AND memory_quota_allows($2, 0, $${params.length - 1}::bigint, $${params.length}::bigint)`;
    }
    const result = await tx.query(
      `UPDATE memories SET ${[...sets, 'updated_at = now()'].join(', ')}
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NULL${quotaCheck}`,
      params,
    );
    return result.rowCount > 0;
  }

  /** Scopes a memory just written to a branch of its project (`memories.branch`, migration 1763700000051). */
  async scopeToBranch(scope: TenantScope, tx: Tx, id: number, branch: string): Promise<void> {
    await tx.query(`UPDATE memories SET branch = $3 WHERE id = $1 AND tenant_id = $2`, [
      id,
      scope.tenantId,
      branch,
    ]);
  }

  async softDelete(scope: TenantScope, tx: Tx, id: number): Promise<void> {
    await tx.query(
      `UPDATE memories SET deleted_at = now(), updated_at = now()
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NULL`,
      [id, scope.tenantId, scope.userId],
    );
  }

  /** Undoes a soft delete; returns what the memory's index is built from, or null if it was live. */
  async restore(
    scope: TenantScope,
    tx: Tx,
    id: number,
  ): Promise<{ content: string; expandedKeywords: string; tags: string[] } | null> {
    const { rows } = await tx.query<{ content: string; expanded_keywords: string; tags: string[] }>(
      `UPDATE memories SET deleted_at = NULL, updated_at = now()
        WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NOT NULL
        RETURNING content, expanded_keywords, tags`,
      [id, scope.tenantId, scope.userId],
    );
    const row = rows[0];
    return row ? { content: row.content, expandedKeywords: row.expanded_keywords, tags: row.tags } : null;
  }

  /**
   * Another live memory of the owner with this content hash that the caller can see (row-level
   * security hides the rest), also one kept out of the uniqueness rule: a writer who stored a text
   * once must be refused it a second time whether or not it duplicated a memory hidden from them.
   */
  async hasLiveDuplicate(
    scope: TenantScope,
    tx: Tx,
    id: number,
    contentHash: Buffer,
  ): Promise<number | null> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT m.id FROM memories m
        WHERE m.tenant_id = $1 AND ${liveWithHashSql('$2', '$3')} AND m.id <> $4
        ORDER BY m.duplicates_hidden, m.id LIMIT 1`,
      [scope.tenantId, scope.userId, contentHash, id],
    );
    return rows[0] ? Number(rows[0].id) : null;
  }

  async purge(scope: TenantScope, tx: Tx, id: number): Promise<void> {
    await tx.query(
      `DELETE FROM memories WHERE id = $1 AND tenant_id = $2 AND owner_id = $3 AND deleted_at IS NOT NULL`,
      [id, scope.tenantId, scope.userId],
    );
  }

  async softDeleteMatching(scope: TenantScope, tx: Tx, filter: MemoryFilter): Promise<number[]> {
    const { where, params } = memoryFilterSql(scope, filter, 'own');
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE memories m SET deleted_at = now(), updated_at = now() WHERE ${where} RETURNING m.id`,
      params,
    );
    return rows.map((r) => Number(r.id));
  }

  /** Soft-deletes up to `limit` expired live memories (all tenants: a system transaction). */
  async softDeleteExpired(tx: Tx, limit: number): Promise<number> {
    const result = await tx.query(
      `UPDATE memories SET deleted_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM memories
                      WHERE deleted_at IS NULL AND expires_at <= now()
                      ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [limit],
    );
    return result.rowCount;
  }

  /**
   * Accepts every proposal older than its tenant's `proposal_auto_accept_hours` (at most `limit`,
   * all tenants: a system transaction); answers them with their tenant.
   */
  async acceptOverdue(tx: Tx, limit: number): Promise<Array<{ id: number; tenantId: string }>> {
    const { rows } = await tx.query<{ id: string; tenant_id: string }>(
      `UPDATE memories m SET review_state = 'accepted', updated_at = now()
        WHERE m.id IN (SELECT p.id FROM memories p JOIN tenants t ON t.id = p.tenant_id
                        WHERE p.review_state = 'proposed' AND p.deleted_at IS NULL
                          AND t.proposal_auto_accept_hours IS NOT NULL
                          AND p.created_at <= now() - make_interval(hours => t.proposal_auto_accept_hours)
                        ORDER BY p.created_at LIMIT $1 FOR UPDATE OF p SKIP LOCKED)
        RETURNING m.id, m.tenant_id`,
      [limit],
    );
    return rows.map((r) => ({ id: Number(r.id), tenantId: r.tenant_id }));
  }
}
