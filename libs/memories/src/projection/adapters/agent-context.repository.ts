import { Injectable } from '@nestjs/common';
import type { TenantScope, Tx } from '@app/persistence';
import { servedMemorySql } from '../../read-model/memory-row';
import { CONVENTION_TAGS, PROJECTED_CATEGORIES, type ProjectedMemory } from '../domain/agent-context';

export interface AgentContextSelection {
  /** The first memories in the file's order, at most the limit. */
  readonly memories: readonly ProjectedMemory[];
  /** How many memories matched before the limit. */
  readonly matched: number;
}

interface Row {
  id: string;
  content: string;
  category: string;
  tags: string[];
  importance: number;
  author: string;
  pinned: boolean;
  matched: string;
}

/** A team-visible memory in force (`m` or `x`): what every teammate reads alike. */
const teamServed = (m: string) =>
  `${m}.tenant_id = $1 AND ${m}.visibility = 'team' AND ${servedMemorySql(m)}`;

/**
 * The memories of one project that go into its agent rule file, in the caller's tenant transaction
 * (row-level security applies as well): team-visible only (the file is committed for the whole team,
 * so no private memory, not even the caller's own), in force, not sensitive, with no anchor whose
 * code changed (`memory_anchors.state` other than `current`), and not superseded by another
 * team-visible memory in force (the head is listed instead). Superseding memories that are private
 * do not count, so every teammate renders the same file. Taken: team pins of any category, the
 * decisions, corrections, preferences and gotchas, and memories tagged a convention.
 *
 * Ordered as `byProjectionOrder` (pinned; decisions; corrections; preferences and conventions;
 * gotchas; then importance, then id), so the limit keeps the file's first memories.
 */
@Injectable()
export class AgentContextRepository {
  async select(scope: TenantScope, tx: Tx, project: string, limit: number): Promise<AgentContextSelection> {
    const { rows } = await tx.query<Row>(
      `WITH picked AS (
         SELECT m.id, m.content, m.category, m.tags, m.importance, u.username AS author,
                EXISTS (SELECT 1 FROM memory_pins p
                         WHERE p.memory_id = m.id AND p.scope = 'team' AND p.tenant_id = $1) AS pinned,
                EXISTS (SELECT 1 FROM unnest(m.tags) t WHERE lower(t) = ANY ($4::text[])) AS convention
           FROM memories m JOIN users u ON u.id = m.owner_id
          WHERE ${teamServed('m')} AND m.project = $2 AND NOT m.is_sensitive AND m.branch IS NULL
            AND NOT EXISTS (SELECT 1 FROM memory_anchors a WHERE a.memory_id = m.id AND a.state <> 'current')
            AND NOT EXISTS (SELECT 1 FROM memory_links l JOIN memories x ON x.id = l.src_id
                             WHERE l.dst_id = m.id AND l.link_type = 'supersedes' AND l.tenant_id = $1
                               AND x.id <> m.id AND ${teamServed('x')} AND x.branch IS NULL)
       )
       SELECT id, content, category, tags, importance, author, pinned, count(*) OVER () AS matched
         FROM picked
        WHERE pinned OR convention OR category = ANY ($3::text[])
        ORDER BY CASE WHEN pinned THEN 0
                      WHEN category = 'decisions' THEN 1
                      WHEN category = 'corrections' THEN 2
                      WHEN category = 'gotchas' THEN 4
                      ELSE 3 END,
                 importance DESC, id
        LIMIT $5`,
      [scope.tenantId, project, PROJECTED_CATEGORIES, CONVENTION_TAGS, limit],
    );
    return {
      memories: rows.map((row) => ({
        id: Number(row.id),
        content: row.content,
        category: row.category,
        tags: row.tags,
        importance: row.importance,
        author: row.author,
        pinned: row.pinned,
      })),
      matched: rows.length > 0 ? Number(rows[0].matched) : 0,
    };
  }
}
