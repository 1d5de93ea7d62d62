/** The markdown report of `npm run bench:layout`: plain vs hash-partitioned `memories`. */
import type { LatencySummary } from '../metrics';
import { count, markdownTable, ms, ratio, triple } from '../report/markdown';
import { size } from '../report/team-footprint-report';

export type Layout = 'plain' | 'partitioned';
export type TenantSize = 'small' | 'big' | 'all';

export interface LoadResult {
  readonly layout: Layout;
  readonly seconds: number;
  readonly heapBytes: number;
  readonly indexBytes: number;
  readonly totalBytes: number;
}

export interface QueryCell {
  readonly query: string;
  readonly tenant: TenantSize;
  readonly layout: Layout;
  /** Named prepared statement, as the service runs its statements (plan cache, maybe generic). */
  readonly prepared: LatencySummary;
  /** Share of the prepared executions that ran a generic plan (statements are shared by tenants). */
  readonly genericShare: number;
  /** Unnamed statement: planned for its parameters on every call. */
  readonly unprepared: LatencySummary;
  /** p50 of `EXPLAIN (SUMMARY)` planning time with the same parameters. */
  readonly planningMs: number;
}

export interface LayoutResults {
  readonly rows: number;
  readonly partitions: number;
  readonly iterations: number;
  readonly shape: string;
  readonly tenantRows: { readonly small: number; readonly big: number };
  readonly machine: string;
  readonly loads: readonly LoadResult[];
  readonly cells: readonly QueryCell[];
}

/** partitioned / plain of one figure; NaN when either side is missing. */
export function layoutRatio(plain: number | undefined, partitioned: number | undefined): number {
  return plain === undefined || partitioned === undefined || plain === 0 ? Number.NaN : partitioned / plain;
}

/** Pairs each (query, tenant) with its plain and partitioned cells, in first-seen order. */
export function pairCells(
  cells: readonly QueryCell[],
): { query: string; tenant: TenantSize; plain?: QueryCell; partitioned?: QueryCell }[] {
  const pairs = new Map<
    string,
    { query: string; tenant: TenantSize; plain?: QueryCell; partitioned?: QueryCell }
  >();
  for (const cell of cells) {
    const key = `${cell.query}\u0000${cell.tenant}`;
    const pair = pairs.get(key) ?? { query: cell.query, tenant: cell.tenant };
    pair[cell.layout] = cell;
    pairs.set(key, pair);
  }
  return [...pairs.values()];
}

const percent = (share: number | undefined) =>
  share === undefined || !Number.isFinite(share) ? 'n/a' : `${Math.round(share * 100)}%`;

const tenantLabel = (r: LayoutResults, t: TenantSize) =>
  t === 'all' ? 'all' : `${t} (${count(r.tenantRows[t])} rows)`;

export function renderLayoutReport(r: LayoutResults): string {
  const plainLoad = r.loads.find((l) => l.layout === 'plain');
  const loadTable = markdownTable(
    ['layout', 'load', 'rows/s', 'heap', 'indexes', 'total', 'total / plain'],
    r.loads.map((l) => [
      l.layout === 'plain' ? 'plain' : `hash × ${r.partitions}`,
      `${l.seconds.toFixed(1)} s`,
      count(Math.round(r.rows / l.seconds)),
      size(l.heapBytes),
      size(l.indexBytes),
      size(l.totalBytes),
      ratio(layoutRatio(plainLoad?.totalBytes, l.totalBytes)),
    ]),
  );
  const pairs = pairCells(r.cells);
  const latencyTable = markdownTable(
    [
      'query',
      'tenant',
      'plain p50 / p95 / p99',
      'partitioned p50 / p95 / p99',
      'part/plain p50',
      'part/plain p95',
      'generic plans plain / part.',
    ],
    pairs.map((p) => [
      p.query,
      tenantLabel(r, p.tenant),
      p.plain ? triple(p.plain.prepared) : 'n/a',
      p.partitioned ? triple(p.partitioned.prepared) : 'n/a',
      ratio(layoutRatio(p.plain?.prepared.p50, p.partitioned?.prepared.p50)),
      ratio(layoutRatio(p.plain?.prepared.p95, p.partitioned?.prepared.p95)),
      `${percent(p.plain?.genericShare)} / ${percent(p.partitioned?.genericShare)}`,
    ]),
  );
  const planningTable = markdownTable(
    [
      'query',
      'tenant',
      'plan plain',
      'plan part.',
      'part/plain',
      'unprepared p50 plain',
      'unprepared p50 part.',
      'part/plain',
    ],
    pairs.map((p) => [
      p.query,
      p.tenant,
      ms(p.plain?.planningMs ?? Number.NaN),
      ms(p.partitioned?.planningMs ?? Number.NaN),
      ratio(layoutRatio(p.plain?.planningMs, p.partitioned?.planningMs)),
      ms(p.plain?.unprepared.p50 ?? Number.NaN),
      ms(p.partitioned?.unprepared.p50 ?? Number.NaN),
      ratio(layoutRatio(p.plain?.unprepared.p50, p.partitioned?.unprepared.p50)),
    ]),
  );
  return [
    `# memories layout: plain vs PARTITION BY HASH (tenant_id), ${count(r.rows)} rows`,
    '',
    `${r.shape}. ${r.machine}.`,
    '',
    '## Load (INSERT … SELECT generate_series in batches, indexes in place) and disk after VACUUM ANALYZE',
    '',
    loadTable,
    '',
    `## Latency, ms (named prepared statements as the service runs them, warm cache, ${count(r.iterations)} iterations)`,
    '',
    'One statement per query and layout, shared by the tenants as in the service: after five custom plans',
    'Postgres may switch to a generic plan, made for no tenant in particular (last column).',
    '',
    latencyTable,
    '',
    '## Planning, ms (p50 of EXPLAIN (SUMMARY) planning time) and latency when planned on every call',
    '',
    planningTable,
    '',
  ].join('\n');
}
