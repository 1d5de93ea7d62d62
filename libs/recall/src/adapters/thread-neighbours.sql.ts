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
 * FROM clause over `source` (aliased `h`, with id, owner_id, tenant_id, tags, created_at) that
 * adds `p.id` and `n.id`: each row's previous and next memory of its thread. Memories of one
 * conversation, session or import batch carry a `thread:<id>` or `session:<id>` tag, and their
 * order is their creation order. Rows without a thread tag drop out (`th.tag IS NOT NULL` goes in
 * the WHERE). Run inside the caller's RLS transaction, a neighbour the caller may not read is
 * skipped as if it did not exist.
 */
export function threadNeighboursFromSql(source: string): string {
  return `${source} h
         CROSS JOIN LATERAL (SELECT min(t) AS tag FROM unnest(h.tags) t WHERE ${threadTagSql}) th
         LEFT JOIN LATERAL (${neighbourSql('before')}) p ON true
         LEFT JOIN LATERAL (${neighbourSql('after')}) n ON true`;
}
