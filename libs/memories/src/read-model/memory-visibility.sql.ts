/**
 * Who may read and who may change a memory, as SQL predicates over alias `m` for the user in
 * parameter `user` (e.g. `$2`). They say what the memories policies say (migration
 * 1763700000007): repositories state the rule explicitly, and row-level security enforces it
 * again underneath. `app_is_admin()` reads the transaction's `app.admin` setting, set for admin keys.
 */

/** Read once per statement, not per row (as the policies do since migration 1763700000022). */
const IS_ADMIN = '(SELECT app_is_admin())';

/** A direct share of `m` with the user, or a tag rule of m's owner covering one of its tags. */
function shareSql(m: string, user: string, permission?: 'write'): string {
  const write = permission ? ` AND s.permission = '${permission}'` : '';
  const tagWrite = permission ? ` AND t.permission = '${permission}'` : '';
  return `EXISTS (SELECT 1 FROM memory_shares s WHERE s.memory_id = ${m}.id AND s.shared_with = ${user}${write})
       OR EXISTS (SELECT 1 FROM tag_shares t
                   WHERE t.owner_id = ${m}.owner_id AND t.shared_with = ${user}${tagWrite} AND t.tag = ANY (${m}.tags))`;
}

/** The user reads `m`: owner, team-visible, shared with them (directly or by tag), or an admin. */
export function visibleMemorySql(m: string, user: string): string {
  return `(${m}.owner_id = ${user} OR ${m}.visibility = 'team' OR ${IS_ADMIN} OR ${shareSql(m, user)})`;
}

/** The user may update `m`: owner, a `write` share (direct or by tag), or an admin. */
export function writableMemorySql(m: string, user: string): string {
  return `(${m}.owner_id = ${user} OR ${IS_ADMIN} OR ${shareSql(m, user, 'write')})`;
}

/**
 * The strongest share the user holds on `m` (`write` > `read`), or null: the expression behind the
 * `permission` and `shared_by` fields of a memory someone shared with the caller.
 */
export function sharePermissionSql(m: string, user: string): string {
  return `(SELECT max(p) FROM (
             SELECT s.permission AS p FROM memory_shares s WHERE s.memory_id = ${m}.id AND s.shared_with = ${user}
             UNION ALL
             SELECT t.permission FROM tag_shares t
              WHERE t.owner_id = ${m}.owner_id AND t.shared_with = ${user} AND t.tag = ANY (${m}.tags)) shares)`;
}

/**
 * What `visibleMemorySql` lets the user read, as disjoint `FROM … WHERE …` branches over alias `m`,
 * each starting from the index that finds its rows: own rows (owner index), teammates' team rows
 * (the partial team index), rows shared directly (`memory_shares_recipient`), rows shared by a tag
 * rule (`tag_shares_recipient`, once each), and for an admin the rest of the tenant. `where` (over
 * `m`) adds liveness and filters. Disjoint, so UNION ALL never yields a memory twice: a share never
 * names the owner, shared branches leave team rows to the team branch, and a row reached by several
 * tag rules counts under the smallest matching tag only.
 */
export function visibleMemoryBranchesSql(p: { tenant: string; user: string; where: string }): string[] {
  const directShare = `EXISTS (SELECT 1 FROM memory_shares d WHERE d.memory_id = m.id AND d.shared_with = ${p.user})`;
  const tagShare = (rule: string) =>
    `EXISTS (SELECT 1 FROM tag_shares o
              WHERE o.owner_id = m.owner_id AND o.shared_with = ${p.user} AND o.tag = ANY (m.tags)${rule})`;
  return [
    `FROM memories m WHERE m.tenant_id = ${p.tenant} AND m.owner_id = ${p.user} AND ${p.where}`,
    `FROM memories m
      WHERE m.tenant_id = ${p.tenant} AND m.visibility = 'team' AND m.owner_id <> ${p.user} AND ${p.where}`,
    `FROM memory_shares s JOIN memories m ON m.id = s.memory_id
      WHERE s.shared_with = ${p.user} AND m.tenant_id = ${p.tenant} AND m.visibility <> 'team' AND ${p.where}`,
    `FROM tag_shares t JOIN memories m ON m.owner_id = t.owner_id AND m.tags @> ARRAY[t.tag]
      WHERE t.shared_with = ${p.user} AND m.tenant_id = ${p.tenant} AND m.visibility <> 'team'
        AND NOT ${tagShare(' AND o.tag < t.tag')} AND NOT ${directShare} AND ${p.where}`,
    `FROM memories m
      WHERE ${IS_ADMIN} AND m.tenant_id = ${p.tenant} AND m.owner_id <> ${p.user} AND m.visibility <> 'team'
        AND NOT ${directShare} AND NOT ${tagShare('')} AND ${p.where}`,
  ];
}
