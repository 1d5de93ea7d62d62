import type { DiskUse } from '../harness/footprint';
import { TEAM_FLOORS, type ServiceMemory, type TeamEndpoints } from '../http/team-endpoints';
import { count, fixed, markdownTable, ms, ratio, triple } from './markdown';

const MIB = 1024 * 1024;

/** Bytes as MiB below 10 GiB, GiB above. */
export function size(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  return bytes >= 10 * 1024 * MIB ? `${fixed(bytes / (1024 * MIB), 1)} GiB` : `${fixed(bytes / MIB, 1)} MiB`;
}

const mib = (value: number) => fixed(value, 1);

/** List, get, sync and store at team size against their floors, with what limits them where it is plain. */
export function renderTeamEndpoints(e: TeamEndpoints): string[] {
  const rows = e.rows.map((r) => [
    r.request,
    count(r.service.latency.count),
    triple(r.service.latency),
    triple(r.floor.latency),
    ratio(r.service.latency.p50 / r.floor.latency.p50),
    ratio(r.service.latency.p99 / r.floor.latency.p99),
    r.service.errors + r.floor.errors === 0
      ? '0'
      : `**${count(r.service.errors)} · ${count(r.floor.errors)}**: ${r.service.firstError ?? r.floor.firstError ?? ''}`,
  ]);
  const later = e.rows.find((r) => r.endpoint === 'list, later page');
  const offset = later ? /offset=(\d+)/.exec(later.request)?.[1] : undefined;
  const c = e.syncCatchUp;
  return [
    `Other endpoints on the same tenant through a built API and worker started for them (as \`npm start\` runs them),`,
    `with ${e.member}'s key at concurrency 1 (closed loop, ${e.secondsPerCell} s per cell, continued up to ${3 * e.secondsPerCell} s for 100 calls),`,
    'each cell followed by its physical floor through `pg` as the schema owner (no RLS, no transaction):',
    '',
    markdownTable(
      [
        'request',
        'calls',
        'p50 / p95 / p99 ms',
        'floor p50 / p95 / p99 ms',
        'p50 × floor',
        'p99 × floor',
        'errors',
      ],
      rows,
    ),
    '',
    ...e.rows.map((r) => `- floor of **${r.endpoint}**: ${TEAM_FLOORS[r.endpoint]}`),
    '',
    'What limits them:',
    '',
    `- list: a full page also answers \`total\`, a count of the whole visible set (the floor counts too); \`count(*)\` of the team's live rows alone: p50 ${ms(e.listCount.p50)} / p99 ${ms(e.listCount.p99)} ms.`,
    ...(offset
      ? [
          `- list, later page: \`offset\` paging reads the ${count(Number(offset))} rows before the page in index order on both sides.`,
        ]
      : []),
    ...e.warnings.map((w) => `- **check failed**: ${w}.`),
    `- sync, incremental: the cursor is the end of a new copy's catch-up, ${count(c.pages)} pages of up to 5,000 (${count(c.items)} items) in ${fixed(c.ms / 1000, 1)} s.`,
  ];
}

export function renderTeamDisk(d: DiskUse): string[] {
  return [
    `On disk after the load: the database is ${size(d.databaseBytes)} (\`pg_database_size\`; it holds every tenant`,
    `of the run: ${count(d.memories.all)} memories, ${count(d.memories.tenant)} of them the team's). Tables (\`pg_table_size\`,`,
    'with TOAST and maps; `pg_indexes_size`; `pg_total_relation_size`) and their largest indexes:',
    '',
    markdownTable(
      ['table', 'rows', 'table', 'indexes', 'total'],
      d.relations.map((r) => [
        r.name,
        Number.isFinite(r.rows) ? count(r.rows) : 'n/a',
        size(r.tableBytes),
        size(r.indexBytes),
        size(r.totalBytes),
      ]),
    ),
    '',
    markdownTable(
      ['index', 'table', 'size'],
      d.indexes.map((i) => [i.name, i.table, size(i.bytes)]),
    ),
  ];
}

export function renderTeamMemory(e: TeamEndpoints): string[] {
  const heap = (m: ServiceMemory) => (m.heap ? `${mib(m.heap.used)} / ${mib(m.heap.total)}` : 'n/a');
  const m = e.memory;
  const load =
    e.apiIndexLoadMs === null
      ? 'not served by them within the deadline'
      : `loaded by recalls before timing in ${fixed(e.apiIndexLoadMs / 1000, 1)} s`;
  const pg = m.postgres;
  const postgres =
    pg.readable === 0
      ? `Postgres: \`shared_buffers\` ${mib(pg.sharedBuffersMb)} MiB; its processes are not readable from /proc here.`
      : `Postgres: \`shared_buffers\` ${mib(pg.sharedBuffersMb)} MiB (allocated at start; the most shared memory any one process had touched, shared_buffers and Postgres' other shared structures: ${mib(pg.sharedTouchedMb)} MiB); the private memory (RssAnon) of the ${pg.readable} processes in \`pg_stat_activity\` (backends and background processes, not the postmaster) summed to ${mib(pg.privateMb)} MiB after the endpoint runs. Summed RSS would count shared_buffers once per process, so it is not given.`;
  return [
    'Memory of each process (MiB; RSS from /proc, V8 heap from the process’s own `/metrics` after the runs):',
    '',
    markdownTable(
      [
        'process',
        'RSS after start',
        'RSS, tenant loaded',
        'RSS peak',
        'V8 heap used / total',
        'what it holds',
      ],
      [
        [
          'API (built)',
          mib(m.api.rssIdle),
          mib(m.api.rssLoaded),
          mib(m.api.rssPeak),
          heap(m.api),
          `the tenant's text and vector indexes (${load})`,
        ],
        [
          'worker (built)',
          mib(m.worker.rssIdle),
          mib(m.worker.rssLoaded),
          mib(m.worker.rssPeak),
          heap(m.worker),
          'the embedding model; embeds what the stores add',
        ],
        [
          'bench',
          '—',
          mib(m.bench.rss),
          '—',
          `${mib(m.bench.heapUsed)} / ${mib(m.bench.heapTotal)}`,
          "the recall runs' in-process API and worker, the floor's copy of the text index, the loader (at the end)",
        ],
      ],
    ),
    '',
    postgres,
  ];
}
