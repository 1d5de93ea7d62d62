/**
 * The store path through the front door: `POST /api/memories` against the built API process at a
 * fixed concurrency, for writers that are all one user and writers spread over 100 users, next to
 * the raw floor measured in the same run (the same row as one autocommitted INSERT through `pg`).
 * Per store it also reports what the processes spent: API and Postgres CPU (from /proc) and rows
 * written (counted in the run's own database). Beside them, the cheapest request through the API that
 * reaches Postgres (an authenticated GET of a memory that does not exist, 404): what any request costs
 * before a store adds its own work. And a second floor, the cheapest HTTP service doing a store's
 * database work (`http-floor-server.ts`: bare Fastify, the raw INSERT through a pool): what HTTP on
 * this machine costs before any of the service's own work.
 *
 *   npm run build && node dist/bench/store/run-store-bench.js -- --seconds 5 --concurrency 4,16
 *
 * The worker does not run: the rate is of acknowledgements, and embedding the stored rows would
 * take the same two cores. `--profile <dir>` writes a CPU profile of the API.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { createBenchDatabase, connectRaw } from '../harness/bench-database';
import { parseFlags, SERVICE_FLAGS, serviceOptions, stringFlag } from '../harness/bench-options';
import { createBenchKeys, createBenchTenant } from '../harness/bench-tenant';
import { startServiceProcesses } from '../harness/service-processes';
import { type StoreCounters, storeCounters } from './store-counters';
import { percentile, runLoad } from './store-load';

const flags = parseFlags(
  process.argv.slice(2).filter((a) => a !== '--'),
  {
    ...SERVICE_FLAGS,
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '4,16' },
    profile: { type: 'string' },
  },
);

interface Row {
  workload: string;
  concurrency: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  apiCpuMs?: number;
  pgCpuMs?: number;
  rows?: number;
}

async function main(): Promise<void> {
  const services = serviceOptions(flags);
  const seconds = Number(stringFlag(flags, 'seconds'));
  const levels = stringFlag(flags, 'concurrency').split(',').map(Number);
  const db = await createBenchDatabase(services.adminUrl, 'store');
  const api = await startServiceProcesses({
    services,
    databaseUrl: db.url,
    queuePrefix: `bench-store-${process.pid}`,
    profileDir: typeof flags.profile === 'string' ? flags.profile : undefined,
    withWorker: false,
  });
  const raw = await connectRaw(db.url, 'store-bench');
  const rows: Row[] = [];
  let httpFloor: { url: string; pid: number; child: ChildProcess } | undefined;
  try {
    const oneUser = await createBenchTenant(raw, { slug: 'one', users: 1 });
    const manyUsers = await createBenchTenant(raw, { slug: 'many', users: 100 });
    const keys = await createBenchKeys(raw, [...oneUser, ...manyUsers]);
    await raw.query(`SELECT set_config('app.system', 'on', false)`); // counts every tenant's rows
    const agent = new Agent({ keepAlive: true, maxSockets: Math.max(...levels) });
    const counters = () => storeCounters(raw, db.name, api.apiPid);
    httpFloor = await startHttpFloor(db.url, oneUser[0]);
    const floorServer = httpFloor;
    for (const concurrency of levels) {
      rows.push(await floor(db.url, oneUser[0], concurrency, seconds, counters));
      // The same INSERT behind the cheapest HTTP service: what HTTP alone costs on this machine.
      const viaHttp = () => postFloor(agent, floorServer.url);
      await runLoad({ concurrency, seconds: 1, op: viaHttp });
      const beforeHttp = await storeCounters(raw, db.name, floorServer.pid);
      const httpResult = await runLoad({ concurrency, seconds, op: viaHttp });
      rows.push({
        workload: 'raw INSERT behind bare Fastify',
        concurrency,
        ...summary(httpResult),
        ...perStore(beforeHttp, await storeCounters(raw, db.name, floorServer.pid), httpResult.done),
      });
      // The cheapest request through the API that reaches Postgres: authentication, the RLS
      // transaction and one row read (of a memory that does not exist), answered 404.
      const probe = () => getMissing(agent, api.apiUrl, keys.get(oneUser[0].userId) as string);
      await runLoad({ concurrency, seconds: 1, op: probe });
      await raw.query('ANALYZE memories'); // as below: the floor's rows arrived faster than autovacuum
      const beforeProbe = await counters();
      const probed = await runLoad({ concurrency, seconds, op: probe });
      rows.push({
        workload: 'GET of a missing memory, 1 user',
        concurrency,
        ...summary(probed),
        ...perStore(beforeProbe, await counters(), probed.done),
      });
      for (const [label, users] of [
        ['store, 1 user', oneUser],
        ['store, 100 users', manyUsers],
      ] as const) {
        const tokens = users.map((u) => keys.get(u.userId) as string);
        const post = (i: number) => storeOnce(agent, api.apiUrl, tokens[i % tokens.length]);
        await runLoad({ concurrency, seconds: 1, op: post }); // warm-up
        // The table grew from nothing within seconds, faster than autovacuum's one-minute round; a
        // running installation's planner has statistics of its memories (plans made without them
        // walk an owner's rows for one hash).
        await raw.query('ANALYZE memories');
        const before = await counters();
        const result = await runLoad({ concurrency, seconds, op: post });
        const after = await counters();
        rows.push({
          workload: label,
          concurrency,
          ...summary(result),
          ...perStore(before, after, result.done),
        });
      }
    }
    agent.destroy();
  } finally {
    httpFloor?.child.kill('SIGTERM');
    await raw.end();
    await api.stop();
    if (!services.keepDatabase) await db.drop();
  }
  print(rows);
}

function storeOnce(agent: Agent, apiUrl: string, token: string): Promise<boolean> {
  const body = JSON.stringify({
    content: `The build cache lives under /var/cache/ci ${randomUUID()}`,
    category: 'facts',
    tags: 'ci,cache',
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${apiUrl}/api/memories`,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200 || res.statusCode === 201));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Starts `http-floor-server.js` as its own process, inserting as `owner`; answers its URL and pid. */
function startHttpFloor(
  databaseUrl: string,
  owner: { tenantId: string; userId: string },
): Promise<{ url: string; pid: number; child: ChildProcess }> {
  const child = fork(join(__dirname, 'http-floor-server.js'), [databaseUrl, owner.tenantId, owner.userId], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { url: string }) =>
      resolve({ url: message.url, pid: child.pid as number, child }),
    );
    child.once('exit', (code) => reject(new Error(`the HTTP floor server exited (${code})`)));
  });
}

function postFloor(agent: Agent, url: string): Promise<boolean> {
  const body = JSON.stringify({ content: `The build cache lives under /var/cache/ci ${randomUUID()}` });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/floor`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 201));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function getMissing(agent: Agent, apiUrl: string, token: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${apiUrl}/api/memories/999999999`,
      { method: 'GET', agent, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 404));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The same row as one autocommitted INSERT as the schema owner (triggers fire, no RLS). */
async function floor(
  url: string,
  owner: { tenantId: string; userId: string },
  concurrency: number,
  seconds: number,
  counters: () => Promise<StoreCounters>,
): Promise<Row> {
  const clients = await Promise.all(
    Array.from({ length: concurrency }, () => connectRaw(url, 'store-floor')),
  );
  const insert = async (i: number) => {
    const content = `The build cache lives under /var/cache/ci ${randomUUID()}`;
    await clients[i % concurrency].query(
      `INSERT INTO memories (tenant_id, owner_id, content, category, tags, content_hash)
       VALUES ($1, $2, $3, 'facts', '{ci,cache}', sha256(convert_to($3, 'UTF8')))`,
      [owner.tenantId, owner.userId, content],
    );
    return true;
  };
  try {
    await runLoad({ concurrency, seconds: 1, op: insert });
    const before = await counters();
    const result = await runLoad({ concurrency, seconds, op: insert });
    const { pgCpuMs, rows } = perStore(before, await counters(), result.done);
    return { workload: 'raw single-row INSERT', concurrency, ...summary(result), pgCpuMs, rows };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

function summary(result: { done: number; errors: number; seconds: number; latencies: Float64Array }) {
  return {
    perSecond: result.done / result.seconds,
    p50: percentile(result.latencies, 0.5),
    p99: percentile(result.latencies, 0.99),
    errors: result.errors,
  };
}

function perStore(before: StoreCounters, after: StoreCounters, stores: number) {
  const per = (a: number, b: number) => (b - a) / Math.max(stores, 1);
  return {
    apiCpuMs: per(before.apiCpuMs, after.apiCpuMs),
    pgCpuMs: per(before.pgCpuMs, after.pgCpuMs),
    rows: per(before.rowsWritten, after.rowsWritten),
  };
}

function print(rows: readonly Row[]): void {
  const f = (n: number | undefined, d = 1) => (n === undefined ? '' : n.toFixed(d));
  console.log(
    '| workload | conc. | /s | % floor | % HTTP floor | p50 ms | p99 ms | errors | server CPU ms (API or bare) | PG CPU ms | rows |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const floorRow = rows.find((r) => r.workload.startsWith('raw') && r.concurrency === row.concurrency);
    const ratio = floorRow ? (100 * row.perSecond) / floorRow.perSecond : 0;
    const httpRow = rows.find(
      (r) => r.workload.includes('bare Fastify') && r.concurrency === row.concurrency,
    );
    const httpRatio =
      httpRow && !row.workload.startsWith('raw') ? `${f((100 * row.perSecond) / httpRow.perSecond, 0)}%` : '';
    console.log(
      `| ${row.workload} | ${row.concurrency} | ${f(row.perSecond, 0)} | ${f(ratio, 0)}% | ${httpRatio} | ${f(row.p50, 2)} | ${f(row.p99, 2)} | ${row.errors} | ${f(row.apiCpuMs, 2)} | ${f(row.pgCpuMs, 2)} | ${f(row.rows, 2)} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
