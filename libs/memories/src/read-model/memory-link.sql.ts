import { liveMemorySql, servedMemorySql } from './memory-row';
import { visibleMemorySql } from './memory-visibility.sql';

/**
 * The caller (`user`) sees memory `m`: same tenant, live, and visible to them. (`s` and `t` are
 * taken: the visibility predicate's share subqueries use them.)
 */
export const readableMemorySql = (m: string, tenant: string, user: string) =>
  `${m}.tenant_id = ${tenant} AND ${liveMemorySql(m)} AND ${visibleMemorySql(m, user)}`;

/** `readableMemorySql` for a memory in force (`servedMemorySql`): what recall serves. */
export const servedReadableMemorySql = (m: string, tenant: string, user: string) =>
  `${m}.tenant_id = ${tenant} AND ${servedMemorySql(m)} AND ${visibleMemorySql(m, user)}`;

/**
 * FROM and WHERE over the links `l` matching `where` whose both ends the caller can see: the links
 * a reader has (row-level security says the same underneath).
 */
export function readableLinksSql(where: string, tenant: string, user: string): string {
  return `FROM memory_links l
            JOIN memories src ON src.id = l.src_id
            JOIN memories dst ON dst.id = l.dst_id
           WHERE ${where} AND l.tenant_id = ${tenant}
             AND ${readableMemorySql('src', tenant, user)} AND ${readableMemorySql('dst', tenant, user)}`;
}

/**
 * The supersedes walk as two entries of a `WITH RECURSIVE` list, `walk` and `heads (start_id,
 * head_id)`: for each id `starts` yields (a query of one bigint column) that a memory the caller
 * can see supersedes, the head of its chain, reached by following "X supersedes Y" from Y to the
 * newest visible X in force (a proposed correction is never a head), at most `depth` hops, never visiting a memory twice. Ids nobody visible
 * supersedes are absent.
 */
export function supersedingHeadsSql(p: {
  starts: string;
  tenant: string;
  user: string;
  depth: string;
}): string {
  // One step per row: the newest visible memory superseding the current node; `path` keeps
  // the walk off a cycle, `depth` bounds it. The deepest row per start is the head.
  return `walk (start_id, node_id, depth, path) AS (
         SELECT id, id, 0, ARRAY[id] FROM (${p.starts}) AS starts (id)
         UNION ALL
         SELECT w.start_id, next.id, w.depth + 1, w.path || next.id
           FROM walk w
           CROSS JOIN LATERAL (
             SELECT x.id FROM memory_links l JOIN memories x ON x.id = l.src_id
              WHERE l.dst_id = w.node_id AND l.link_type = 'supersedes' AND l.tenant_id = ${p.tenant}
                AND ${servedReadableMemorySql('x', p.tenant, p.user)}
              ORDER BY x.created_at DESC, x.id DESC
              LIMIT 1) next
          WHERE w.depth < ${p.depth} AND next.id <> ALL (w.path)
       ), heads AS (
         SELECT DISTINCT ON (start_id) start_id, node_id AS head_id
           FROM walk WHERE depth > 0
          ORDER BY start_id, depth DESC
       )`;
}
