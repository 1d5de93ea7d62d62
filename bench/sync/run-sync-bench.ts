/**
 * `npm run bench:sync`: the seed full dump (`GET /api/memories/sync`, no parameters) and the JSON
 * Lines export (`GET /api/memories/export?format=jsonl`) of 100k rows, streamed by the built API
 * process, each against its floor measured in the same run: the same rows read raw through `pg`.
 * Reports rows/s for both, their ratio (target ≥ 50%) and the API process's RSS growth while
 * streaming (target < 100 MB).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { Client } from 'pg';

const ROOT = resolve(__dirname, '../../..');
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    // Caps the API's V8 old space (MB): a stream that kept its rows would fail under a small cap.
    'api-heap-mb': { type: 'string' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  return typeof address === 'object' && address ? address.port : 0;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface ApiRun {
  readonly times: number[];
  readonly baselineMb: number;
  readonly peakGrowthMb: number;
}

async function timeRaw(db: Client, sql: string, userId: string): Promise<number[]> {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const started = process.hrtime.bigint();
    const { rowCount } = await db.query(sql, [userId]);
    if (rowCount !== ROWS) throw new Error(`raw query returned ${rowCount} rows`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

/** Reads the streamed answer RUNS times, sampling the API process's RSS every 20 ms. */
async function timeApi(
  pid: number,
  url: string,
  key: string,
  countRows: (body: string) => number,
): Promise<ApiRun> {
  const times: number[] = [];
  let peakGrowthMb = 0;
  const baselineMb = rssMb(pid);
  for (let r = 0; r < RUNS; r++) {
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
    const started = process.hrtime.bigint();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const chunks: Buffer[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      chunks.push(Buffer.from(chunk));
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    clearInterval(sampler);
    peakGrowthMb = Math.max(peakGrowthMb, Math.max(peak, rssMb(pid)) - before);
    const rows = countRows(Buffer.concat(chunks).toString('utf8'));
    if (res.status !== 200 || rows !== ROWS)
      throw new Error(`${url} returned ${res.status} with ${rows} rows`);
  }
  return { times, baselineMb, peakGrowthMb };
}

function section(title: string, floor: string, raw: number[], api: ApiRun): string[] {
  const rawRate = ROWS / (median(raw) / 1000);
  const apiRate = ROWS / (median(api.times) / 1000);
  return [
    `## ${title}, ${ROWS.toLocaleString('en')} rows, median of ${RUNS}`,
    '',
    '| path | median time | rows/s | target |',
    '| --- | --- | --- | --- |',
    `| raw \`${floor}\` through pg (floor) | ${median(raw).toFixed(0)} ms | ${rawRate.toFixed(0)} | |`,
    `| API stream to the client | ${median(api.times).toFixed(0)} ms | ${apiRate.toFixed(0)} | |`,
    `| ratio API / raw | | ${((apiRate / rawRate) * 100).toFixed(0)}% | ≥ 50% |`,
    `| API RSS growth while streaming (peak, baseline ${api.baselineMb.toFixed(0)} MB) | | ${api.peakGrowthMb.toFixed(1)} MB | < 100 MB |`,
  ];
}

async function main(): Promise<void> {
  const dbName = `memsvc_syncbench_${process.pid}`;
  const admin = new Client({ connectionString: values['admin-url'] });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(values['admin-url'] as string);
  dbUrl.pathname = `/${dbName}`;
  const key = `bench-key-${process.pid}-sync`;
  const port = await freePort();
  const heapCap =
    values['api-heap-mb'] === undefined ? [] : [`--max-old-space-size=${values['api-heap-mb']}`];
  const api = spawn(process.execPath, [...heapCap, resolve(ROOT, 'dist/apps/api/src/main.js')], {
    cwd: ROOT,
    env: {
      DATABASE_URL: dbUrl.toString(),
      API_KEYS: JSON.stringify({ bench: key }),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const db = new Client({ connectionString: dbUrl.toString() });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (i > 600) throw new Error('API did not become ready');
      if (api.exitCode !== null) throw new Error(`API exited with ${api.exitCode} before becoming ready`);
      const ok = await fetch(`${url}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await db.connect();
    const user = (await db.query(`SELECT id, tenant_id FROM users WHERE username = 'bench'`)).rows[0];
    const loadStarted = Date.now();
    await db.query(
      `INSERT INTO memories (tenant_id, owner_id, content, category, tags, expanded_keywords, content_hash)
       SELECT $1, $2, 'Synthetic memory ' || i || ': the deploy pipeline for service ' || (i % 97) ||
              ' runs database migrations before the rollout and posts a summary to the team channel.',
              'facts', ARRAY['bench', 'tag' || (i % 13)], 'deploy pipeline migrations',
              sha256(convert_to('Synthetic memory ' || i, 'UTF8'))
         FROM generate_series(1, $3::int) i`,
      [user.tenant_id, user.id, ROWS],
    );
    const loadMs = Date.now() - loadStarted;

    const rawSync = await timeRaw(
      db,
      `SELECT id, content, category, tags, expanded_keywords, importance, is_sensitive, created_at, updated_at, deleted_at
         FROM memories WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY change_seq`,
      user.id,
    );
    const apiSync = await timeApi(api.pid as number, `${url}/api/memories/sync`, key, (text) => {
      return (JSON.parse(text) as { memories: unknown[] }).memories.length;
    });
    // The export's floor reads what it reads: every column plus links and shares per row.
    const rawExport = await timeRaw(
      db,
      `SELECT m.*, (SELECT json_agg(l.dst_id) FROM memory_links l WHERE l.src_id = m.id) AS links,
              (SELECT json_agg(s.permission) FROM memory_shares s WHERE s.memory_id = m.id) AS shares
         FROM memories m WHERE m.owner_id = $1 AND m.deleted_at IS NULL ORDER BY m.id`,
      user.id,
    );
    const apiExport = await timeApi(
      api.pid as number,
      `${url}/api/memories/export?format=jsonl`,
      key,
      (text) => text.split('\n').filter((l) => l !== '').length,
    );

    const lines = [
      ...section(`Seed full dump (GET /api/memories/sync)`, 'SELECT … ORDER BY change_seq', rawSync, apiSync),
      '',
      ...section(
        `JSON Lines export (GET /api/memories/export?format=jsonl)`,
        'SELECT … links, shares ORDER BY id',
        rawExport,
        apiExport,
      ),
      '',
      `(bulk load of the rows through the sync trigger: ${(loadMs / 1000).toFixed(1)} s)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    api.kill('SIGTERM');
    await once(api, 'exit').catch(() => undefined);
    await db.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
