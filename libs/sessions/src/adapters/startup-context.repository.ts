import { Injectable } from '@nestjs/common';
import { liveMemorySql, visibleMemorySql } from '@app/memories';
import { type TenantScope, type Tx } from '@app/persistence';
import { STARTUP_DECISION_CATEGORIES, STARTUP_IMPORTANT_MIN } from '../domain/startup-context';

export type StartupSectionQuery = 'important' | 'decisions';

export interface StartupCandidate {
  readonly id: number;
  /** Live memories the caller can see that this one `supersedes`, ascending. */
  readonly supersedes: number[];
}

/** A live memory the caller reads (`visibleMemorySql`: own, team, shared, admin) — alias given. */
const readable = (m: string) =>
  `${m}.tenant_id = $1 AND ${visibleMemorySql(m, '$2')} AND ${liveMemorySql(m)}`;

/** Each section's filter (its one parameter is `$5`) and order; ids break ties, so the order is total. */
const SECTION_SQL: Record<StartupSectionQuery, { where: string; param: unknown; orderBy: string }> = {
  important: {
    where: `m.importance >= $5::double precision`,
    param: STARTUP_IMPORTANT_MIN,
    orderBy: 'm.importance DESC, m.updated_at DESC, m.id DESC',
  },
  decisions: {
    where: `(m.category = ANY ($5::text[])
             OR EXISTS (SELECT 1 FROM memory_links l JOIN memories d ON d.id = l.dst_id
                         WHERE l.src_id = m.id AND l.link_type = 'supersedes' AND l.tenant_id = $1
                           AND ${readable('d')}))`,
    param: STARTUP_DECISION_CATEGORIES,
    orderBy: 'm.updated_at DESC, m.id DESC',
  },
};

/**
 * Candidates for the memory sections of a session's startup context: live memories the caller
 * may read, of one project plus the project-less ones (every project when none is given), that no
 * visible live memory supersedes (the newer version is listed instead). Each comes with the ids it
 * supersedes, so the block can say what a correction replaces.
 */
@Injectable()
export class StartupContextRepository {
  async candidates(
    scope: TenantScope,
    tx: Tx,
    query: { section: StartupSectionQuery; project: string | null; limit: number },
  ): Promise<StartupCandidate[]> {
    const section = SECTION_SQL[query.section];
    const { rows } = await tx.query<{ id: string; supersedes: string[] }>(
      `SELECT m.id,
              array(SELECT d.id FROM memory_links l JOIN memories d ON d.id = l.dst_id
                     WHERE l.src_id = m.id AND l.link_type = 'supersedes' AND l.tenant_id = $1
                       AND ${readable('d')}
                     ORDER BY d.id) AS supersedes
         FROM memories m
        WHERE ${readable('m')}
          AND ($3::text IS NULL OR m.project = $3 OR m.project IS NULL)
          AND ${section.where}
          AND NOT EXISTS (SELECT 1 FROM memory_links l JOIN memories x ON x.id = l.src_id
                           WHERE l.dst_id = m.id AND l.link_type = 'supersedes' AND l.tenant_id = $1
                             AND ${readable('x')})
        ORDER BY ${section.orderBy}
        LIMIT $4`,
      [scope.tenantId, scope.userId, query.project, query.limit, section.param],
    );
    return rows.map((row) => ({ id: Number(row.id), supersedes: row.supersedes.map(Number) }));
  }
}
