import { Injectable } from '@nestjs/common';
import { liveMemorySql, visibleMemorySql } from '@app/memories';
import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { ThreadNeighbours } from './memory-neighbour.repository';
import { threadNeighboursFromSql } from './thread-neighbours.sql';

/** What ranking reads of a candidate; the full row is read only if it is served. */
export interface RankingFacts {
  readonly importance: number;
  readonly project: string | null;
  /** ISO text, as `Memory.createdAt`. */
  readonly createdAt: string;
}

export interface RecallCandidates {
  /** Every hit and thread neighbour the caller may read (live, visible), by id. */
  readonly facts: ReadonlyMap<number, RankingFacts>;
  /** Each hit's thread neighbours (hits in no thread are absent). */
  readonly threads: readonly ThreadNeighbours[];
}

interface CandidateRow {
  id: string;
  importance: number;
  project: string | null;
  created_at: string;
  previous_id: string | null;
  next_id: string | null;
}

const factColumns = (m: string) =>
  `${m}.id, ${m}.importance, ${m}.project, ${isoTimestamp(`${m}.created_at`)} AS created_at`;

/**
 * The one statement between the legs and ranking: the hits the caller may still read with their
 * ranking facts and, when thread context is on, their thread neighbours (threadNeighboursFromSql)
 * with the same facts. Each memory states the read rule explicitly; row-level security applies
 * it again underneath. Prepared: driven by the ids alone, its plan never depends on the caller.
 */
@Injectable()
export class RecallCandidateRepository {
  async describe(
    scope: TenantScope,
    tx: Tx,
    hitIds: readonly number[],
    options: { readonly threads: boolean },
  ): Promise<RecallCandidates> {
    if (hitIds.length === 0) return { facts: new Map(), threads: [] };
    const readable = (m: string) =>
      `${m}.tenant_id = $2 AND ${visibleMemorySql(m, '$3')} AND ${liveMemorySql(m)}`;
    const { rows } = await tx.query<CandidateRow>(
      `WITH hits AS MATERIALIZED (
         SELECT m.id, m.owner_id, m.tenant_id, m.tags, m.created_at, m.importance, m.project
           FROM memories m
          WHERE m.id = ANY($1::bigint[]) AND ${readable('m')}
       ), threads AS MATERIALIZED (
         SELECT h.id, p.id AS previous_id, n.id AS next_id
           FROM ${threadNeighboursFromSql('hits')}
          WHERE $4 AND th.tag IS NOT NULL
       )
       SELECT ${factColumns('h')}, t.previous_id, t.next_id
         FROM hits h LEFT JOIN threads t ON t.id = h.id
       UNION ALL
       SELECT ${factColumns('m')}, NULL, NULL
         FROM memories m
        WHERE m.id IN (SELECT previous_id FROM threads UNION SELECT next_id FROM threads)
          AND NOT EXISTS (SELECT 1 FROM hits h WHERE h.id = m.id) AND ${readable('m')}`,
      [hitIds, scope.tenantId, scope.userId, options.threads],
      { prepared: true },
    );
    const id = (value: string | null) => (value === null ? null : Number(value));
    return {
      facts: new Map(
        rows.map((r) => [
          Number(r.id),
          { importance: r.importance, project: r.project, createdAt: r.created_at },
        ]),
      ),
      threads: rows
        .filter((r) => r.previous_id !== null || r.next_id !== null)
        .map((r) => ({ memoryId: Number(r.id), previousId: id(r.previous_id), nextId: id(r.next_id) })),
    };
  }
}
