import { Injectable } from '@nestjs/common';
import { servedMemorySql, visibleMemorySql, type PinScope } from '@app/memories';
import { type TenantScope, type Tx } from '@app/persistence';
import {
  STARTUP_DECISION_CATEGORIES,
  STARTUP_IMPORTANT_MIN,
  STARTUP_REQUESTED_TAG,
} from '../domain/startup-context';

export type StartupSectionQuery = 'requested' | 'important' | 'decisions';

export interface StartupCandidate {
  readonly id: number;
  /** Live memories the caller can see that this one `supersedes`, ascending. */
  readonly supersedes: number[];
  /** Pinned candidates: the pin that lists it (`team` when there are both). */
  readonly pin?: PinScope;
}

/** Ids of the live memories the caller can see that memory `m` supersedes, ascending. */
const SUPERSEDES = (m: string) => `array(SELECT d.id FROM memory_links l JOIN memories d ON d.id = l.dst_id
                     WHERE l.src_id = ${m}.id AND l.link_type = 'supersedes' AND l.tenant_id = $1
                       AND ${readable('d')}
                     ORDER BY d.id)`;

/**
 * A memory of the whole project, or of the caller's branch of it (`$b`: the caller's branch, null
 * when unknown): branch-scoped memories are listed on their branch only (migration 1763700000051).
 */
const onBranch = (m: string, branch: string) =>
  `(${m}.branch IS NULL OR (${m}.branch = ${branch} AND ${m}.project = $3))`;

/** A live memory the caller reads (`visibleMemorySql`: own, team, shared, admin) — alias given. */
const readable = (m: string) =>
  `${m}.tenant_id = $1 AND ${visibleMemorySql(m, '$2')} AND ${servedMemorySql(m)}`;

/** Each section's filter (its one parameter is `$5`) and order; ids break ties, so the order is total. */
const SECTION_SQL: Record<StartupSectionQuery, { where: string; param: unknown; orderBy: string }> = {
  requested: {
    where: `m.tags @> ARRAY[$5::text]`,
    param: STARTUP_REQUESTED_TAG,
    orderBy: 'm.updated_at DESC, m.id DESC',
  },
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
    query: { section: StartupSectionQuery; project: string | null; branch: string | null; limit: number },
  ): Promise<StartupCandidate[]> {
    const section = SECTION_SQL[query.section];
    const { rows } = await tx.query<{ id: string; supersedes: string[] }>(
      `SELECT m.id, ${SUPERSEDES('m')} AS supersedes
         FROM memories m
        WHERE ${readable('m')}
          AND ($3::text IS NULL OR m.project = $3 OR m.project IS NULL)
          AND ${section.where}
          AND ${onBranch('m', '$6')}
          AND NOT EXISTS (SELECT 1 FROM memory_links l JOIN memories x ON x.id = l.src_id
                           WHERE l.dst_id = m.id AND l.link_type = 'supersedes' AND l.tenant_id = $1
                             AND ${readable('x')} AND ${onBranch('x', '$6')})
        ORDER BY ${section.orderBy}
        LIMIT $4`,
      [scope.tenantId, scope.userId, query.project, query.limit, section.param, query.branch],
    );
    return rows.map((row) => ({ id: Number(row.id), supersedes: row.supersedes.map(Number) }));
  }

  /**
   * Pinned memories of the project (or with no project; every project when none is given): the
   * team's pins, then the caller's own, newest pin first. A pin shows only while its memory is live
   * and visible to the caller; a pinned memory is listed even when a newer version supersedes it
   * (the pin names that memory).
   */
  async pinned(
    scope: TenantScope,
    tx: Tx,
    query: { project: string | null; branch: string | null; limit: number },
  ): Promise<StartupCandidate[]> {
    const { rows } = await tx.query<{ id: string; supersedes: string[]; pin: PinScope }>(
      `SELECT m.id, ${SUPERSEDES('m')} AS supersedes, pin.scope AS pin
         FROM (SELECT DISTINCT ON (p.memory_id) p.memory_id, p.scope, p.created_at
                 FROM memory_pins p
                WHERE p.tenant_id = $1 AND (p.scope = 'team' OR p.user_id = $2)
                ORDER BY p.memory_id, p.scope = 'team' DESC, p.created_at DESC) pin
         JOIN memories m ON m.id = pin.memory_id
        WHERE ${readable('m')}
          AND ($3::text IS NULL OR m.project = $3 OR m.project IS NULL)
          AND ${onBranch('m', '$5')}
        ORDER BY pin.scope = 'team' DESC, pin.created_at DESC, m.id DESC
        LIMIT $4`,
      [scope.tenantId, scope.userId, query.project, query.limit, query.branch],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      supersedes: row.supersedes.map(Number),
      pin: row.pin,
    }));
  }
}
