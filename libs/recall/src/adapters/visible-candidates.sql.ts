/**
 * The caller's visible memories for one embedding model, as disjoint branches that each start
 * from the index that finds them: own rows from the embeddings' (model_id, owner_id) btree,
 * teammates' team-visible rows from the partial team index, rows shared directly from
 * `memory_shares_recipient`, rows shared by tag from `tag_shares_recipient` and the owner's rows,
 * and for an admin every user's rows of the tenant through the (model_id, owner_id) btree. They say
 * what `visibleMemorySql` says; disjoint so that UNION ALL never yields a memory twice (a share
 * never names the owner as recipient, and shared branches leave team-visible rows to the team one).
 */

/** Which rows: `visible` (recall) or `own` (dedup); `admin` widens `visible` to the whole tenant. */
export interface CandidateScope {
  readonly reach: 'visible' | 'own';
  readonly admin: boolean;
}

/** SQL parameter references and the per-memory conditions (alias `m`) every branch adds. */
export interface BranchParams {
  readonly model: string;
  readonly tenant: string;
  readonly user: string;
  /** Liveness, the recall filters and exclusions over `m`, without tenant or visibility terms. */
  readonly filters: string;
}

export interface EmbeddingBranchParams extends BranchParams {
  /** `filters` with the tenant and `visibleMemorySql` terms: the admin branch states the rule itself. */
  readonly visible: string;
}

/** Rows of `m` reached through a tag rule `t`, once each: the rule with the smallest matching tag, none if shared directly. */
function firstTagRuleSql(p: BranchParams): string {
  return `NOT EXISTS (SELECT 1 FROM tag_shares o
                       WHERE o.owner_id = t.owner_id AND o.shared_with = ${p.user}
                         AND o.tag < t.tag AND o.tag = ANY (m.tags))
          AND NOT EXISTS (SELECT 1 FROM memory_shares s WHERE s.memory_id = m.id AND s.shared_with = ${p.user})`;
}

/**
 * The exact plan gathering its own size: each branch stops at `cap` rows, and rows are counted as
 * countBranches counts them (live memories not embedded yet too, with a null embedding), whatever
 * the recall filters say; `wanted` says whether a row passes them.
 */
export interface SizedGathering {
  readonly cap: string;
  readonly wanted: string;
}

/**
 * Branches selecting `e.memory_id, e.embedding` for the exact plan's candidate set (and `wanted`
 * when sized; `filters` then holds liveness and exclusions only, `visible` no recall filters).
 */
export function embeddingBranches(
  scope: CandidateScope,
  p: EmbeddingBranchParams,
  sized?: SizedGathering,
): string[] {
  const columns = `e.memory_id, e.embedding${sized ? `, ${sized.wanted} AS wanted` : ''}`;
  // Memories found first and embedded or not: sized, an unembedded one still counts.
  const memoryColumns = sized ? `m.id AS memory_id, e.embedding, ${sized.wanted} AS wanted` : columns;
  const embedding = `${sized ? 'LEFT ' : ''}JOIN memory_embeddings e ON e.memory_id = m.id AND e.model_id = ${p.model}`;
  const bounded = (branches: string[]) =>
    sized ? branches.map((b) => `(${b} LIMIT ${sized.cap})`) : branches;
  if (scope.reach === 'visible' && scope.admin) {
    return bounded([
      `SELECT ${columns}
         FROM users u
         JOIN memory_embeddings e ON e.model_id = ${p.model} AND e.owner_id = u.id
         JOIN memories m ON m.id = e.memory_id
        WHERE u.tenant_id = ${p.tenant} AND e.tenant_id = ${p.tenant} AND ${p.visible}`,
    ]);
  }
  // Own rows are scoped on the embeddings' index; the memory row is then only probed by primary key.
  // Repeating the tenant and owner on the memory side would let a planner with stale statistics (a
  // user's rows bulk-loaded since the last ANALYZE, estimated at 1) scan the owner's memories once
  // per embedding: 9 s at 7,500 rows.
  const own = `SELECT ${columns}
                 FROM memory_embeddings e
                 JOIN memories m ON m.id = e.memory_id
                WHERE e.model_id = ${p.model} AND e.tenant_id = ${p.tenant} AND e.owner_id = ${p.user} AND ${p.filters}`;
  if (scope.reach === 'own') return bounded([own]);
  return bounded([
    own,
    `SELECT ${memoryColumns}
       FROM memories m ${embedding}
      WHERE m.tenant_id = ${p.tenant} AND m.visibility = 'team' AND m.owner_id <> ${p.user} AND ${p.filters}`,
    `SELECT ${memoryColumns}
       FROM memory_shares s JOIN memories m ON m.id = s.memory_id ${embedding}
      WHERE s.shared_with = ${p.user} AND m.tenant_id = ${p.tenant} AND m.visibility <> 'team' AND ${p.filters}`,
    `SELECT ${memoryColumns}
       FROM tag_shares t JOIN memories m ON m.owner_id = t.owner_id AND m.tags @> ARRAY[t.tag] ${embedding}
      WHERE t.shared_with = ${p.user} AND m.tenant_id = ${p.tenant} AND m.visibility <> 'team'
        AND ${firstTagRuleSql(p)} AND ${p.filters}`,
  ]);
}

/**
 * Branches selecting one row per candidate, for the bounded count that sizes the plan. Own rows
 * (and an admin's tenant) count embeddings; the others count live memories, without probing the
 * embeddings (cheaper; a memory not embedded yet counts, which only errs towards the index plan).
 */
export function countBranches(scope: CandidateScope, p: BranchParams): string[] {
  if (scope.reach === 'visible' && scope.admin) {
    return [
      `SELECT 1 FROM users u JOIN memory_embeddings e ON e.model_id = ${p.model} AND e.owner_id = u.id
        WHERE u.tenant_id = ${p.tenant} AND e.tenant_id = ${p.tenant} AND app_is_admin()`,
    ];
  }
  const own = `SELECT 1 FROM memory_embeddings e
                WHERE e.model_id = ${p.model} AND e.tenant_id = ${p.tenant} AND e.owner_id = ${p.user}`;
  if (scope.reach === 'own') return [own];
  return [
    own,
    `SELECT 1 FROM memories m
      WHERE m.tenant_id = ${p.tenant} AND m.visibility = 'team' AND m.owner_id <> ${p.user} AND ${p.filters}`,
    `SELECT 1 FROM memory_shares s JOIN memories m ON m.id = s.memory_id
      WHERE s.shared_with = ${p.user} AND m.tenant_id = ${p.tenant} AND m.visibility <> 'team' AND ${p.filters}`,
    `SELECT 1 FROM tag_shares t JOIN memories m ON m.owner_id = t.owner_id AND m.tags @> ARRAY[t.tag]
      WHERE t.shared_with = ${p.user} AND m.tenant_id = ${p.tenant} AND m.visibility <> 'team'
        AND ${firstTagRuleSql(p)} AND ${p.filters}`,
  ];
}
