/**
 * The cost of the sync bookkeeping on the write path: one-statement memory inserts (as the app
 * role, through row-level security and every trigger) from several connections at once, for
 * writers that are all one user and for writers that are each a different user of one tenant.
 * A write path that serialises one user's writes shows as a gap between the two rows.
 *
 *   npx vite-node --config vitest.config.ts bench/sync/run-sync-write-bench.ts -- --seconds 5 --writers 8
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { createDataSource, runMigrations } from '@app/persistence';
import { connectRaw, createBenchDatabase } from '../harness/bench-database';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    writers: { type: 'string', default: '8' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const SECONDS = Number(values.seconds);
const WRITERS = Number(values.writers);

interface Scope {
  tenantId: string;
  userId: string;
}

async function writer(url: string, scope: Scope, until: number): Promise<number> {
  const client = new Client({ connectionString: url, application_name: 'sync-write-bench' });
  await client.connect();
  let n = 0;
  try {
    while (Date.now() < until) {
      const content = `bench ${randomUUID()}`;
      await client.query('BEGIN');
      await client.query(
        `SELECT set_config('role', 'memory_app', true), set_config('app.tenant_id', $1, true), set_config('app.user_id', $2, true)`,
        [scope.tenantId, scope.userId],
      );
      await client.query(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
         VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')))`,
        [scope.tenantId, scope.userId, content],
      );
      await client.query('COMMIT');
      n += 1;
    }
  } finally {
    await client.end();
  }
  return n;
}

async function run(url: string, scopes: Scope[]): Promise<number> {
  const until = Date.now() + SECONDS * 1000;
  const counts = await Promise.all(scopes.map((scope) => writer(url, scope, until)));
  return counts.reduce((a, b) => a + b, 0) / SECONDS;
}

async function main(): Promise<void> {
  const db = await createBenchDatabase(values['admin-url'] as string, 'syncwrite');
  try {
    const dataSource = createDataSource({
      url: db.url,
      poolSize: 2,
      statementTimeoutMs: 600_000,
      applicationName: 'sync-write-bench',
    });
    await dataSource.initialize();
    await runMigrations(dataSource);
    await dataSource.destroy();

    const raw = await connectRaw(db.url, 'sync-write-bench');
    const tenantId = (
      await raw.query<{ id: string }>(`INSERT INTO tenants (slug, name) VALUES ('b', 'b') RETURNING id`)
    ).rows[0].id;
    const users: Scope[] = [];
    for (let i = 0; i < WRITERS; i += 1) {
      const { rows } = await raw.query<{ id: string }>(
        `INSERT INTO users (tenant_id, username) VALUES ($1, $2) RETURNING id`,
        [tenantId, `writer${i}`],
      );
      users.push({ tenantId, userId: rows[0].id });
    }
    await raw.end();

    const oneUser = await run(
      db.url,
      Array.from({ length: WRITERS }, () => users[0]),
    );
    const manyUsers = await run(db.url, users);
    const lines = [
      `## Memory inserts through the sync triggers, ${WRITERS} connections, ${SECONDS} s each`,
      '',
      '| writers | inserts/s |',
      '| --- | --- |',
      `| ${WRITERS} connections, one user | ${oneUser.toFixed(0)} |`,
      `| ${WRITERS} connections, ${WRITERS} users of one tenant | ${manyUsers.toFixed(0)} |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await db.drop();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
