import type { HttpResults, HttpRow } from '../phases/http-phase';
import { WORKLOAD_REQUESTS } from '../http/http-workloads';
import { FLOOR_REQUESTS } from '../http/raw-floors';
import { machineLine, type MachineInfo } from './machine';
import { count, markdownTable, ms, ratio, triple } from './markdown';
import {
  floorPartsCell,
  indexShareNotes,
  RECALL_FLOOR_TEXT,
  servedByIndex,
  TEXT_INDEX_HEADER,
  TEXT_INDEX_TEXT,
  textIndexCells,
  type IndexShareReading,
} from './recall-floor-report';

export interface HttpBenchResults {
  readonly mode: 'http' | 'http-quick';
  readonly startedAt: string;
  readonly durationS: number;
  readonly machine: MachineInfo;
  readonly loadAverage: { before: number; after: number };
  readonly model: { id: string; dimensions: number };
  readonly overrides: Readonly<Record<string, string>>;
  readonly http: HttpResults;
  readonly notes: readonly string[];
}

const rate = (value: number) => (Number.isFinite(value) ? count(Math.round(value)) : 'n/a');
const share = (value: number) => (Number.isFinite(value) ? `${Math.round(value * 100)}%` : 'n/a');

/** One line per workload × concurrency, with its floor beside it and the ratios between them. */
function rowCells(row: HttpRow): string[] {
  const s = row.service;
  const f = row.floor;
  return [
    row.workload,
    String(row.concurrency),
    String(row.apiProcesses),
    rate(s.perSecond),
    triple(s.latency),
    s.errors === 0 ? '0' : `**${count(s.errors)}**`,
    row.floorName ?? '—',
    f ? rate(f.perSecond) : '—',
    f ? triple(f.latency) : '—',
    f ? ratio(s.latency.p50 / f.latency.p50) : '—',
    f ? ratio(s.latency.p99 / f.latency.p99) : '—',
    f ? share(s.perSecond / f.perSecond) : '—',
    `${ms(row.cpu.api)} · ${ms(row.cpu.postgres)} · ${ms(row.cpu.worker)}`,
    row.floorPostgresMs === null ? '—' : ms(row.floorPostgresMs),
  ];
}

const HEADER = [
  'workload',
  'c',
  'APIs',
  'req/s',
  'p50 / p95 / p99 ms',
  'errors',
  'floor',
  'floor /s',
  'floor p50 / p95 / p99',
  'p50 × floor',
  'p99 × floor',
  '/s of floor',
  'CPU ms/req API · PG · worker',
  'floor PG ms',
];

/** MCP `memory_recall` against REST recall at the same shape and concurrency (target ≤ 1.2×). */
function mcpTable(rows: readonly HttpRow[]): string {
  const pairs = rows
    .filter((r) => r.workload === 'mcp recall' && r.apiProcesses === 1)
    .map((mcp) => {
      const rest = rows.find(
        (r) =>
          r.workload === 'recall' &&
          r.shape === mcp.shape &&
          r.concurrency === mcp.concurrency &&
          r.apiProcesses === 1,
      );
      return [
        mcp.shape,
        String(mcp.concurrency),
        rest ? ms(rest.service.latency.p50) : 'n/a',
        ms(mcp.service.latency.p50),
        rest ? ratio(mcp.service.latency.p50 / rest.service.latency.p50) : 'n/a',
      ];
    });
  return markdownTable(['shape', 'c', 'REST recall p50 ms', 'MCP recall p50 ms', 'MCP ÷ REST'], pairs);
}

/**
 * REST recall in every shape, concurrency and API count against its physical floor: the acceptance
 * view (latency, throughput, CPU per request, index share, the floor part by part).
 */
export function recallTable(http: Pick<HttpResults, 'rows' | 'shapes'>): string {
  const order = (label: string) => http.shapes.findIndex((s) => s.label === label);
  const rows = http.rows
    .filter((r) => r.workload === 'recall')
    .sort(
      (a, b) =>
        order(a.shape) - order(b.shape) || a.concurrency - b.concurrency || a.apiProcesses - b.apiProcesses,
    );
  return markdownTable(
    [
      'shape',
      'c',
      'APIs',
      'req/s',
      'p50 / p95 / p99 ms',
      'CPU ms/req API · PG · worker',
      'served by index',
      'floor /s',
      'floor p50 / p95 / p99',
      'floor parts p50: embed · index · vector · rows',
      'p50 × floor',
    ],
    rows.map((r) => [
      r.shape,
      String(r.concurrency),
      String(r.apiProcesses),
      rate(r.service.perSecond),
      triple(r.service.latency),
      `${ms(r.cpu.api)} · ${ms(r.cpu.postgres)} · ${ms(r.cpu.worker)}`,
      servedByIndex(r.indexShare),
      r.floor ? rate(r.floor.perSecond) : '—',
      r.floor ? triple(r.floor.latency) : '—',
      r.floorParts ? floorPartsCell(r.floorParts) : '—',
      r.floor ? ratio(r.service.latency.p50 / r.floor.latency.p50) : '—',
    ]),
  );
}

/** The share of each recall cell's recalls (REST and MCP) that the API processes' indexes served. */
export function httpIndexShareReadings(http: Pick<HttpResults, 'rows'>): IndexShareReading[] {
  return http.rows
    .filter((r) => r.workload === 'recall' || r.workload === 'mcp recall')
    .map((r) => ({
      where: `HTTP ${r.workload}, ${r.shape}, c=${r.concurrency}, ${r.apiProcesses} API`,
      share: r.indexShare,
    }));
}

/** Per shape: the text index an API process holds, and what the Postgres fallback costs instead. */
function textLegTable(http: Pick<HttpResults, 'shapes'>): string {
  return markdownTable(
    ['shape', ...TEXT_INDEX_HEADER, 'SQL text leg (fallback) p50 / p95 / p99 ms, 1 lane'],
    http.shapes.map((shape) => [
      shape.label,
      ...textIndexCells(shape.textIndex),
      shape.sqlTextLeg && shape.sqlTextLeg.count > 0
        ? `${triple(shape.sqlTextLeg)} (${shape.sqlTextLeg.count} calls)`
        : 'n/a',
    ]),
  );
}

export function renderHttpReport(results: HttpBenchResults): string {
  const lines = [
    `# HTTP benchmark (${results.mode}, ${results.startedAt})`,
    '',
    `Machine: ${machineLine(results.machine)}. Load average ${results.loadAverage.before.toFixed(2)} → ` +
      `${results.loadAverage.after.toFixed(2)}; ${Math.round(results.durationS)} s in all. Model ` +
      `\`${results.model.id}\` (${results.model.dimensions}-d).` +
      (Object.keys(results.overrides).length > 0
        ? ` Overrides: ${Object.entries(results.overrides)
            .map(([k, v]) => `\`${k}=${v}\``)
            .join(', ')}.`
        : ''),
    '',
    ...httpSections(results.http, '##'),
  ];
  const notes = [...results.notes, ...indexShareNotes(httpIndexShareReadings(results.http))];
  if (results.http.reusedQueries > 0)
    notes.push(`${results.http.reusedQueries} recalls reused a text (they may have hit the query cache).`);
  if (notes.length > 0) lines.push('## Notes', '', ...notes.map((n) => `- ${n}`), '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The HTTP run's tables, headed at `level` (`##` alone, `###` inside the whole benchmark's report). */
export function httpSections(http: HttpResults, level: '##' | '###'): string[] {
  const lines = [
    `The built API and worker as processes; each workload × concurrency (c lanes in a closed loop, ` +
      `keep-alive undici connections) runs ${http.secondsPerCell} s after 2×c warm-up calls, then its ` +
      'floor at the same concurrency through plain `pg` connections as the schema owner. CPU per request ' +
      'is each process’s own CPU time (/proc/<pid>/stat) over the cell divided by its calls; PG is the ' +
      'Postgres backends of the API and the worker together.',
    '',
  ];
  for (const shape of http.shapes) {
    lines.push(
      `${level} ${shape.label}`,
      '',
      `${count(shape.users)} members, ${count(shape.memories)} memories, ${count(shape.visiblePerUser)} visible to each caller.`,
      '',
      markdownTable(HEADER, http.rows.filter((r) => r.shape === shape.label).map(rowCells)),
      '',
    );
  }
  lines.push(
    `${level} Recall against its physical floor, 1 and 2 API processes`,
    '',
    ...RECALL_FLOOR_TEXT,
    'Every API process recalled on every shape until its index answered before any cell ran; "served by',
    'index" is the share of the cell\'s recalls (warm-up calls included) whose text leg an index served,',
    "from the processes' `memsvc_recall_text_leg_total`. With 2 APIs the lanes split between the processes.",
    '',
    recallTable(http),
    '',
    `${level} Text index and the SQL fallback per shape`,
    '',
    ...TEXT_INDEX_TEXT,
    '',
    textLegTable(http),
    '',
    `${level} MCP against REST recall`,
    '',
    mcpTable(http.rows),
    '',
    `${level} Memory`,
    '',
    `API RSS ${ms(http.rss.apiIdle)} MB idle, ${ms(http.rss.apiPeak)} MB peak under load; worker ` +
      `${ms(http.rss.workerIdle)} MB idle, ${ms(http.rss.workerPeak)} MB peak.`,
    '',
    `${level} What each row sends`,
    '',
    ...Object.entries(WORKLOAD_REQUESTS).map(([name, what]) => `- **${name}**: ${what}`),
    '',
    'Floors:',
    '',
    ...Object.entries(FLOOR_REQUESTS).map(([name, what]) => `- **${name}**: ${what}`),
    '',
  );
  return lines;
}
