/**
 * `npm run bench:layout`: is partitioning `memories` by tenant worth it? In a scratch database it
 * creates and drops, builds the hot columns and access-path indexes of `memories` twice, as one
 * plain table and as PARTITION BY HASH (tenant_id), loads the same skewed rows into each (one big
 * tenant, many small ones), and measures the service's access paths on both for a small and the big
 * tenant, plus a cross-tenant retention scan, planning time included. Writes
 * bench/results/latest-layout.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { summariseLatencies, percentile } from '../metrics';
import { describeMachine, machineLine } from '../report/machine';
import { LAYOUT_QUERIES, type LayoutQuery, type TenantSample } from './layout-queries';
import {
  renderLayoutReport,
  type Layout,
  type LoadResult,
  type QueryCell,
  type TenantSize,
} from './layout-report';
import {
  createTableSql,
  loadBatchSql,
  ownerUuid,
  sizeSql,
  tenantUuid,
  type LoadShape,
} from './layout-schema';

const ROOT = resolve(__dirname, '../../..');
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    partitions: { type: 'string', default: '16' },
    'big-percent': { type: 'string', default: '50' },
    'small-tenants': { type: 'string', default: '200' },
    iterations: { type: 'string', default: '500' },
    batch: { type: 'string', default: '100000' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    out: { type: 'string', default: 'bench/results/latest-layout.md' },
  },
});
const SHAPE: LoadShape = {
  rows: Number(values.rows),
  bigPercent: Number(values['big-percent']),
  smallTenants: Number(values['small-tenants']),
  bigOwners: 50,
  smallOwners: 3,
};
const PARTITIONS = Number(values.partitions);
const ITERATIONS = Number(values.iterations);
const BATCH = Number(values.batch);
const TABLES: Record<Layout, string> = { plain: 'mem_plain', partitioned: 'mem_hash' };
// Tenant 1 is a small tenant like any other; tenant 0 is the big one.
const TENANTS: Record<Exclude<TenantSize, 'all'>, number> = { small: 1, big: 0 };

const log = (line: string) => process.stderr.write(`[bench:layout] ${line}\n`);
const elapsedMs = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;

async function load(db: Client, layout: Layout): Promise<LoadResult> {
  const table = TABLES[layout];
  for (const sql of createTableSql(table, layout === 'plain' ? undefined : PARTITIONS)) await db.query(sql);
  const started = process.hrtime.bigint();
  for (let from = 1; from <= SHAPE.rows; from += BATCH)
    await db.query(loadBatchSql(table, SHAPE), [from, Math.min(from + BATCH - 1, SHAPE.rows)]);
  const seconds = elapsedMs(started) / 1000;
  await db.query(`VACUUM ANALYZE ${table}`);
  const { rows } = await db.query<{ heap: number; indexes: number; total: number }>(sizeSql(table));
  log(`${layout}: loaded ${SHAPE.rows} rows in ${seconds.toFixed(1)} s`);
  return { layout, seconds, heapBytes: rows[0].heap, indexBytes: rows[0].indexes, totalBytes: rows[0].total };
}

async function sample(db: Client, table: string, tenant: number): Promise<TenantSample> {
  const tenantId = tenantUuid(tenant);
  const owners = tenant === 0 ? SHAPE.bigOwners : SHAPE.smallOwners;
  const { rows } = await db.query<{ id: string; change_seq: string }>(
    `SELECT id, change_seq FROM ${table} WHERE tenant_id = $1 ORDER BY hashint8(id) LIMIT 1000`,
    [tenantId],
  );
  return {
    tenantId,
    ownerIds: Array.from({ length: owners }, (_, o) => ownerUuid(tenant, o)),
    ids: rows.map((r) => r.id),
    changeSeqs: rows.map((r) => r.change_seq),
  };
}

const LAYOUTS: readonly Layout[] = ['plain', 'partitioned'];

/**
 * Runs each layout's `run` warm-up + `iterations` times, alternating layouts (and which goes first)
 * on every iteration so both see the same machine; returns the measured timings in ms per layout.
 */
async function alternate(
  iterations: number,
  run: (layout: Layout, i: number) => Promise<number>,
): Promise<Record<Layout, number[]>> {
  const warmup = Math.min(50, iterations);
  const times: Record<Layout, number[]> = { plain: [], partitioned: [] };
  for (let i = 0; i < warmup + iterations; i++)
    for (const layout of i % 2 === 0 ? LAYOUTS : [...LAYOUTS].reverse()) {
      const ms = await run(layout, i);
      if (i >= warmup) times[layout].push(ms);
    }
  return times;
}

async function timed(query: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await query();
  return elapsedMs(started);
}

async function planningMs(db: Client, text: string, params: unknown[]): Promise<number> {
  const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (SUMMARY) ${text}`, params);
  const line = rows.map((r) => r['QUERY PLAN']).find((l) => l.startsWith('Planning Time'));
  return Number(/([\d.]+) ms/.exec(line ?? '')?.[1]);
}

/** Both layouts' cells for one query and tenant. */
async function measure(
  db: Client,
  q: LayoutQuery,
  tenant: TenantSize,
  samples: Record<Layout, TenantSample>,
): Promise<QueryCell[]> {
  const text = (layout: Layout) => q.sql(TABLES[layout]);
  const params = (layout: Layout, i: number) => q.params(samples[layout], i);
  const name = (layout: Layout) => `layout_${layout}_${LAYOUT_QUERIES.indexOf(q)}`;
  const genericPlans = async (layout: Layout) =>
    Number(
      (await db.query(`SELECT generic_plans FROM pg_prepared_statements WHERE name = $1`, [name(layout)]))
        .rows[0]?.generic_plans ?? 0,
    );
  const genericBefore = {
    plain: await genericPlans('plain'),
    partitioned: await genericPlans('partitioned'),
  };
  const prepared = await alternate(ITERATIONS, (l, i) =>
    timed(() => db.query({ name: name(l), text: text(l), values: params(l, i) })),
  );
  const runs = ITERATIONS + Math.min(50, ITERATIONS);
  const genericShare = {
    plain: ((await genericPlans('plain')) - genericBefore.plain) / runs,
    partitioned: ((await genericPlans('partitioned')) - genericBefore.partitioned) / runs,
  };
  const unprepared = await alternate(ITERATIONS, (l, i) => timed(() => db.query(text(l), params(l, i))));
  const planning = await alternate(Math.min(ITERATIONS, 200), (l, i) =>
    planningMs(db, text(l), params(l, i)),
  );
  return LAYOUTS.map((layout) => ({
    query: q.name,
    tenant,
    layout,
    prepared: summariseLatencies(prepared[layout]),
    genericShare: genericShare[layout],
    unprepared: summariseLatencies(unprepared[layout]),
    planningMs: percentile(planning[layout], 50),
  }));
}

async function main(): Promise<void> {
  const dbName = `memsvc_layoutbench_${process.pid}`;
  const admin = new Client({ connectionString: values['admin-url'] });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(values['admin-url'] as string);
  dbUrl.pathname = `/${dbName}`;
  const db = new Client({ connectionString: dbUrl.toString() });
  try {
    await db.connect();
    // Each insert commits on its own; not waiting for the WAL flush keeps fsync noise, the same for
    // both layouts, out of the comparison.
    await db.query(`SET synchronous_commit = off`);
    const loads = [await load(db, 'plain'), await load(db, 'partitioned')];
    const tenantRows = async (tenant: number) =>
      Number(
        (
          await db.query(`SELECT count(*) AS n FROM ${TABLES.plain} WHERE tenant_id = $1`, [
            tenantUuid(tenant),
          ])
        ).rows[0].n,
      );
    const rowsOf = { small: await tenantRows(TENANTS.small), big: await tenantRows(TENANTS.big) };
    const samples = {} as Record<Exclude<TenantSize, 'all'>, Record<Layout, TenantSample>>;
    for (const [size, tenant] of Object.entries(TENANTS) as [Exclude<TenantSize, 'all'>, number][])
      samples[size] = {
        plain: await sample(db, TABLES.plain, tenant),
        partitioned: await sample(db, TABLES.partitioned, tenant),
      };
    const cells: QueryCell[] = [];
    for (const q of LAYOUT_QUERIES)
      for (const tenant of q.scope === 'all' ? (['all'] as const) : (['small', 'big'] as const)) {
        const pair = await measure(db, q, tenant, samples[tenant === 'all' ? 'small' : tenant]);
        cells.push(...pair);
        log(
          `${q.name} / ${tenant}: p50 ${pair.map((c) => `${c.layout} ${c.prepared.p50.toFixed(3)} ms`).join(', ')}`,
        );
      }
    const markdown = renderLayoutReport({
      rows: SHAPE.rows,
      partitions: PARTITIONS,
      iterations: ITERATIONS,
      shape:
        `One big tenant with ${SHAPE.bigPercent}% of the rows (${SHAPE.bigOwners} owners) and ` +
        `${SHAPE.smallTenants} small tenants sharing the rest (${SHAPE.smallOwners} owners each); ` +
        `30% team-visible, 5% soft-deleted`,
      tenantRows: rowsOf,
      machine: machineLine(await describeMachine(db)),
      loads,
      cells,
    });
    const out = resolve(ROOT, values.out as string);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, markdown);
    process.stdout.write(markdown);
    log(`wrote ${values.out}`);
  } finally {
    await db.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
