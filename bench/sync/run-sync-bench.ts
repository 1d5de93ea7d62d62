/**
 * `npm run bench:sync`: the seed full dump (`GET /api/memories/sync`, no parameters) of 100k rows,
 * streamed by the built API process, against the floor measured in the same run: the same rows
 * read raw through `pg` with `SELECT … ORDER BY change_seq`. Reports rows/s for both, their ratio
 * (target ≥ 50%) and the API process's RSS growth while streaming (target < 100 MB).
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

async function main(): Promise<void> {
  const dbName = `memsvc_syncbench_${process.pid}`;
  const admin = new Client({ connectionString: values['admin-url'] });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(values['admin-url'] as string);
  dbUrl.pathname = `/${dbName}`;
  const key = `bench-key-${process.pid}-sync`;
  const port = await freePort();
  const api = spawn(process.execPath, [resolve(ROOT, 'dist/apps/api/src/main.js')], {
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

    const rawTimes: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const started = process.hrtime.bigint();
      const { rowCount } = await db.query(
        `SELECT id, content, category, tags, expanded_keywords, importance, is_sensitive, created_at, updated_at, deleted_at
           FROM memories WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY change_seq`,
        [user.id],
      );
      if (rowCount !== ROWS) throw new Error(`raw query returned ${rowCount} rows`);
      rawTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
    }

    const apiTimes: number[] = [];
    let peakGrowth = 0;
    const baseline = rssMb(api.pid as number);
    for (let r = 0; r < RUNS; r++) {
      const before = rssMb(api.pid as number);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(api.pid as number))), 20);
      const started = process.hrtime.bigint();
      const res = await fetch(`${url}/api/memories/sync`, { headers: { authorization: `Bearer ${key}` } });
      const chunks: Buffer[] = [];
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
        chunks.push(Buffer.from(chunk));
      apiTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
      clearInterval(sampler);
      peak = Math.max(peak, rssMb(api.pid as number));
      peakGrowth = Math.max(peakGrowth, peak - before);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { memories: unknown[] };
      if (res.status !== 200 || body.memories.length !== ROWS) {
        throw new Error(`sync returned ${res.status} with ${body.memories.length} rows`);
      }
    }

    const rawRate = ROWS / (median(rawTimes) / 1000);
    const apiRate = ROWS / (median(apiTimes) / 1000);
    const lines = [
      `## Seed full dump (GET /api/memories/sync), ${ROWS.toLocaleString('en')} rows, median of ${RUNS}`,
      '',
      '| path | median time | rows/s | target |',
      '| --- | --- | --- | --- |',
      `| raw \`SELECT … ORDER BY change_seq\` through pg (floor) | ${median(rawTimes).toFixed(0)} ms | ${rawRate.toFixed(0)} | |`,
      `| API stream to the client | ${median(apiTimes).toFixed(0)} ms | ${apiRate.toFixed(0)} | |`,
      `| ratio API / raw | | ${((apiRate / rawRate) * 100).toFixed(0)}% | ≥ 50% |`,
      `| API RSS growth while streaming (peak, baseline ${baseline.toFixed(0)} MB) | | ${peakGrowth.toFixed(1)} MB | < 100 MB |`,
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
