import { describe, expect, it } from 'vitest';
import type { DiskUse } from '../harness/footprint';
import type { TeamEndpointRow, TeamEndpoints } from '../http/team-endpoints';
import type { LatencySummary } from '../metrics';
import { renderTeamDisk, renderTeamEndpoints, renderTeamMemory, size } from './team-footprint-report';

const latency = (p50: number): LatencySummary => ({ count: 100, p50, p95: p50 * 2, p99: p50 * 4, mean: p50 });
const run = (p50: number, errors = 0) => ({
  concurrency: 1,
  latency: latency(p50),
  perSecond: 1000 / p50,
  errors,
  firstError: errors ? 'GET /api/memories answered 500: boom' : null,
  seconds: 1,
  calls: 103,
});
const row = (
  endpoint: TeamEndpointRow['endpoint'],
  request: string,
  service: number,
  floor: number,
  errors = 0,
) => ({
  endpoint,
  request,
  service: run(service, errors),
  floor: run(floor),
});

const endpoints: TeamEndpoints = {
  member: 'user-000',
  secondsPerCell: 3,
  rows: [
    row('list', 'GET /api/memories?limit=50', 40, 20),
    row('list, later page', 'GET /api/memories?limit=50&offset=500000', 300, 200, 2),
    row('get', 'GET /api/memories/:id (a random team memory)', 2, 0.5),
  ],
  syncCatchUp: { pages: 201, items: 1_000_000, ms: 95_400 },
  warnings: [],
  listCount: latency(18),
  apiIndexLoadMs: 76_170,
  memory: {
    api: { rssIdle: 380, rssLoaded: 1450.25, rssPeak: 1500, heap: { used: 900, total: 1000 } },
    worker: { rssIdle: 360, rssLoaded: 361, rssPeak: 370, heap: null },
    bench: { rss: 3000, heapUsed: 1200, heapTotal: 1400 },
    postgres: { sharedBuffersMb: 2048, processes: 12, readable: 12, privateMb: 95.5, sharedTouchedMb: 1800 },
  },
};

/** The trimmed cells of the table row whose first cell is `first`. */
function cells(text: string, first: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith(`| ${first} `));
  if (!line) throw new Error(`no row ${first}`);
  return line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
}

describe('size', () => {
  it('answers MiB below 10 GiB and GiB above', () => {
    expect(size(512 * 1024 * 1024)).toBe('512.0 MiB');
    expect(size(12 * 1024 ** 3)).toBe('12.0 GiB');
    expect(size(Number.NaN)).toBe('n/a');
  });
});

describe('renderTeamEndpoints', () => {
  const text = renderTeamEndpoints(endpoints).join('\n');

  it('gives each endpoint its latencies, its floor and the ratios between them', () => {
    expect(cells(text, 'GET /api/memories?limit=50')).toEqual([
      'GET /api/memories?limit=50',
      '100',
      '40.0 / 80.0 / 160.0',
      '20.0 / 40.0 / 80.0',
      '2.00×',
      '2.00×',
      '0',
    ]);
    expect(cells(text, 'GET /api/memories/:id (a random team memory)').slice(2, 6)).toEqual([
      '2.00 / 4.00 / 8.00',
      '0.50 / 1.00 / 2.00',
      '4.00×',
      '4.00×',
    ]);
    expect(text).toContain(
      "with user-000's key at concurrency 1 (closed loop, 3 s per cell, continued up to 9 s",
    );
  });

  it('shows failures with the first message, and a floor that did not answer as the API did', () => {
    expect(text).toContain('**2 · 0**: GET /api/memories answered 500: boom');
    expect(text).not.toContain('check failed');
    const warned = renderTeamEndpoints({ ...endpoints, warnings: ['the page held 19 changes'] }).join('\n');
    expect(warned).toContain('- **check failed**: the page held 19 changes.');
  });

  it('says what limits the list and where the incremental cursor came from', () => {
    expect(text).toContain('alone: p50 18.0 / p99 72.0 ms');
    expect(text).toContain('reads the 500,000 rows before the page');
    expect(text).toContain('201 pages of up to 5,000 (1,000,000 items) in 95.4 s');
    expect(text).toContain('- floor of **get**: one row by primary key');
  });
});

describe('renderTeamDisk', () => {
  const disk: DiskUse = {
    databaseBytes: 11 * 1024 ** 3,
    memories: { all: 1_020_000, tenant: 1_000_000 },
    relations: [
      {
        name: 'memories',
        rows: 1_020_000,
        tableBytes: 3 * 1024 ** 3,
        indexBytes: 1024 ** 3,
        totalBytes: 4 * 1024 ** 3,
      },
      { name: 'text_corpus_stats', rows: Number.NaN, tableBytes: 8192, indexBytes: 16384, totalBytes: 24576 },
    ],
    indexes: [{ name: 'memory_embeddings_hnsw', table: 'memory_embeddings', bytes: 800 * 1024 * 1024 }],
  };
  const text = renderTeamDisk(disk).join('\n');

  it('sizes the database, each table and the largest indexes', () => {
    expect(text).toContain('the database is 11.0 GiB');
    expect(text).toContain('1,020,000 memories, 1,000,000 of them the team');
    expect(cells(text, 'memories')).toEqual([
      'memories',
      '1,020,000',
      '3072.0 MiB',
      '1024.0 MiB',
      '4096.0 MiB',
    ]);
    expect(cells(text, 'text_corpus_stats').slice(1, 3)).toEqual(['n/a', '0.0 MiB']);
    expect(cells(text, 'memory_embeddings_hnsw')).toEqual([
      'memory_embeddings_hnsw',
      'memory_embeddings',
      '800.0 MiB',
    ]);
  });
});

describe('renderTeamMemory', () => {
  const text = renderTeamMemory(endpoints).join('\n');

  it('gives each process its RSS and heap, and Postgres its own line', () => {
    expect(text).toContain(
      '| API (built)    | 380.0           | 1450.3             | 1500.0   | 900.0 / 1000.0',
    );
    expect(text).toContain('| worker (built) | 360.0           | 361.0              | 370.0    | n/a ');
    expect(text).toContain('loaded by recalls before timing in 76.2 s');
    expect(text).toContain('other shared structures: 1800.0 MiB)');
    expect(text).toContain('12 processes in `pg_stat_activity`');
    expect(text).toContain('summed to 95.5 MiB');
  });

  it('says so when Postgres is not readable from /proc', () => {
    const elsewhere = {
      ...endpoints,
      memory: { ...endpoints.memory, postgres: { ...endpoints.memory.postgres, readable: 0 } },
    };
    expect(renderTeamMemory(elsewhere).join('\n')).toContain('not readable from /proc here');
  });
});
