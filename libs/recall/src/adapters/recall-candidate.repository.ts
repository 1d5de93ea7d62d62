import { Injectable } from '@nestjs/common';
import { servedReadableMemorySql, SUPERSEDES_MAX_DEPTH, supersedingHeadsSql } from '@app/memories';
import { isoTimestamp, type TenantScope, type Tx } from '@app/persistence';
import type { ThreadNeighbours } from './memory-neighbour.repository';
import { threadedRowSql, threadNeighboursFromSql } from './thread-neighbours.sql';

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
  /** For each candidate a memory the caller can see supersedes: the head of its chain. */
  readonly heads: ReadonlyMap<number, number>;
}

interface CandidateRow {
  id: string;
  importance: number;
  project: string | null;
  created_at: string;
  previous_id: string | null;
  next_id: string | null;
  head_id: string | null;
}

const factColumns = (m: string) =>
  `${m}.id, ${m}.importance, ${m}.project, ${isoTimestamp(`${m}.created_at`)} AS created_at`;

/**
 * The one statement between the legs and ranking: the hits the caller may still read with their
 * ranking facts; when thread context is on, their thread neighbours (threadNeighboursFromSql) with
 * the same facts; and unless superseded memories are wanted as they are, the head of each
 * candidate's supersedes chain (supersedingHeadsSql). Each memory states the read rule explicitly;
 * row-level security applies it again underneath. Prepared: driven by the ids alone, its plan
 * never depends on the caller.
 */
@Injectable()
export class RecallCandidateRepository {
  async describe(
    scope: TenantScope,
    tx: Tx,
    hitIds: readonly number[],
    options: {
      readonly threads: boolean;
      readonly heads: boolean;
      /** Untagged memories written within this many ms of each other form threads (0: off). */
      readonly implicitWindowMs?: number;
    },
  ): Promise<RecallCandidates> {
    if (hitIds.length === 0) return { facts: new Map(), threads: [], heads: new Map() };
    const readable = (m: string) => servedReadableMemorySql(m, '$2', '$3');
    const walk = supersedingHeadsSql({
      starts: `SELECT c.id FROM (SELECT id FROM hits UNION SELECT previous_id FROM threads
                                 UNION SELECT next_id FROM threads) c
                WHERE $5 AND c.id IS NOT NULL`,
      tenant: '$2',
      user: '$3',
      depth: '$6',
    });
    const { rows } = await tx.query<CandidateRow>(
      `WITH RECURSIVE hits AS MATERIALIZED (
         SELECT m.id, m.owner_id, m.tenant_id, m.tags, m.created_at, m.importance, m.project
           FROM memories m
          WHERE m.id = ANY($1::bigint[]) AND ${readable('m')}
       ), threads AS MATERIALIZED (
         SELECT h.id, p.id AS previous_id, n.id AS next_id
           FROM ${threadNeighboursFromSql('hits', options.implicitWindowMs)}
          WHERE $4 AND ${threadedRowSql(options.implicitWindowMs)}
       ), ${walk}
       SELECT ${factColumns('h')}, t.previous_id, t.next_id, hd.head_id
         FROM hits h LEFT JOIN threads t ON t.id = h.id LEFT JOIN heads hd ON hd.start_id = h.id
       UNION ALL
       SELECT ${factColumns('m')}, NULL, NULL, hd.head_id
         FROM memories m LEFT JOIN heads hd ON hd.start_id = m.id
        WHERE m.id IN (SELECT previous_id FROM threads UNION SELECT next_id FROM threads)
          AND NOT EXISTS (SELECT 1 FROM hits h WHERE h.id = m.id) AND ${readable('m')}`,
      [hitIds, scope.tenantId, scope.userId, options.threads, options.heads, SUPERSEDES_MAX_DEPTH],
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
      heads: new Map(
        rows.filter((r) => r.head_id !== null).map((r) => [Number(r.id), Number(r.head_id)] as const),
      ),
    };
  }
}
