import { servedMemorySql } from '@app/memories';
import { THREAD_TAG_PREFIXES } from '../domain/thread-context';

const threadTagSql = THREAD_TAG_PREFIXES.map((p) => `t LIKE '${p}%'`).join(' OR ');

/** One side's neighbour: the owner's nearest live memory of the thread before or after `h`. */
const neighbourSql = (direction: 'before' | 'after') => `
  SELECT n.id FROM memories n
   WHERE n.owner_id = h.owner_id AND n.tenant_id = h.tenant_id AND n.tags @> ARRAY[th.tag]
     AND ${servedMemorySql('n')}
     AND (n.created_at, n.id) ${direction === 'before' ? '<' : '>'} (h.created_at, h.id)
   ORDER BY n.created_at ${direction === 'before' ? 'DESC' : 'ASC'}, n.id ${direction === 'before' ? 'DESC' : 'ASC'}
   LIMIT 1`;

/**
 * One side's neighbour of a memory without a thread tag: the owner's nearest live memory without
 * one, written before or after `h` — not at the same instant (one request's batch of separate
 * facts) — and at most `windowMs` apart (`memories_owner_created_live` bounds the walk).
 */
const implicitNeighbourSql = (direction: 'before' | 'after', windowMs: number) => `
  SELECT n.id FROM memories n
   WHERE th.tag IS NULL AND n.owner_id = h.owner_id AND n.tenant_id = h.tenant_id
     AND n.created_at ${direction === 'before' ? `>= h.created_at - ` : `<= h.created_at + `}interval '${windowMs} milliseconds'
     AND n.created_at ${direction === 'before' ? '<' : '>'} h.created_at
     AND NOT EXISTS (SELECT 1 FROM unnest(n.tags) t WHERE ${threadTagSql})
     AND ${servedMemorySql('n')}
   ORDER BY n.created_at ${direction === 'before' ? 'DESC' : 'ASC'}, n.id ${direction === 'before' ? 'DESC' : 'ASC'}
   LIMIT 1`;

/**
 * FROM clause over `source` (aliased `h`, with id, owner_id, tenant_id, tags, created_at) that
 * adds `p.id` and `n.id`: each row's previous and next memory of its thread. Memories of one
 * conversation or session carry a `thread:<id>` or `session:<id>` tag, and their order is their
 * creation order. With `implicitWindowMs` > 0, memories without such a tag form threads too: an
 * owner's untagged memories written one after another, each within that window of the one before
 * (a conversation stored or imported turn by turn without tags, with its times); memories written
 * at one instant (one request's batch) are not each other's neighbours. Rows without a thread tag keep
 * null neighbours when the window is 0 (`th.tag IS NOT NULL` in the WHERE leaves them out). Run
 * inside the caller's RLS transaction, a neighbour the caller may not read is skipped as if it did
 * not exist.
 */
export function threadNeighboursFromSql(source: string, implicitWindowMs = 0): string {
  const window = Math.max(0, Math.round(implicitWindowMs));
  const side = (direction: 'before' | 'after') =>
    window > 0
      ? `SELECT COALESCE((${neighbourSql(direction)}), (${implicitNeighbourSql(direction, window)})) AS id`
      : neighbourSql(direction);
  return `${source} h
         CROSS JOIN LATERAL (SELECT min(t) AS tag FROM unnest(h.tags) t WHERE ${threadTagSql}) th
         LEFT JOIN LATERAL (${side('before')}) p ON true
         LEFT JOIN LATERAL (${side('after')}) n ON true`;
}

/** The WHERE condition that keeps the rows `threadNeighboursFromSql` can give neighbours. */
export function threadedRowSql(implicitWindowMs = 0): string {
  return Math.round(implicitWindowMs) > 0 ? 'true' : 'th.tag IS NOT NULL';
}
