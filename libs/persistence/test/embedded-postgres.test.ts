import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDataSource,
  DataDirLockedError,
  runMigrations,
  startEmbeddedPostgres,
  startMigratedEmbeddedPostgres,
  TransactionRunner,
  type EmbeddedPostgres,
} from '@app/persistence';
import { MIGRATIONS } from '@app/migrations';
import { createTestTenant, type TestDatabase } from '@app/testing';

const LOCK_FILE = 'pgdata.lock';

async function open(pg: EmbeddedPostgres): Promise<TestDatabase> {
  const dataSource = createDataSource({
    url: pg.url,
    poolSize: pg.poolSize,
    statementTimeoutMs: 30_000,
    applicationName: 'embedded-test',
  });
  await dataSource.initialize();
  return {
    dataSource,
    tx: new TransactionRunner(dataSource, 'memory_app'),
    close: () => dataSource.destroy(),
  };
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

describe('embedded Postgres (PGlite over pglite-socket)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memsvc-embedded-'));
  let pg: EmbeddedPostgres;
  let db: TestDatabase;
  let alice: { tenantId: string; userId: string };
  let bob: { tenantId: string; userId: string };
  let memoryId: string;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres({ dataDir });
    db = await open(pg);
  });

  afterAll(async () => {
    await db?.close().catch(() => undefined);
    await pg?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves on a 127.0.0.1 port with a pool no larger than the connection limit', () => {
    expect(pg.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(pg.poolSize).toBeGreaterThanOrEqual(2);
  });

  it('runs the same migrations as the server database', async () => {
    const result = await runMigrations(db.dataSource);
    expect(result.applied).toEqual(MIGRATIONS.map((m) => new m().name));
    const roles = await db.dataSource.query(
      `SELECT rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = 'memory_app'`,
    );
    expect(roles).toEqual([{ rolsuper: false, rolbypassrls: false, rolcanlogin: false }]);
  });

  it('keeps row-level security: a memory written by alice is invisible to bob', async () => {
    const tenant = await createTestTenant(db);
    expect(tenant.tenantId).toMatch(/^[0-9a-f-]{36}$/); // gen_random_uuid() default
    alice = await tenant.addUser('alice');
    bob = await tenant.addUser('bob');

    memoryId = await db.tx.inTenant(alice, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, tags, content_hash)
         VALUES ($1, $2, 'deploys go through the blue cluster', '{ops}', $3) RETURNING id`,
        [alice.tenantId, alice.userId, sha256('deploys go through the blue cluster')],
      );
      return rows[0].id;
    });

    const seenByAlice = await db.tx.inTenant(alice, (tx) =>
      tx.query(
        `SELECT content, search_vector @@ plainto_tsquery('english', 'deploy cluster') AS matches,
                current_user AS role
           FROM memories WHERE id = $1`,
        [memoryId],
      ),
    );
    expect(seenByAlice.rows).toEqual([
      { content: 'deploys go through the blue cluster', matches: true, role: 'memory_app' },
    ]);

    const seenByBob = await db.tx.inTenant(bob, (tx) => tx.query(`SELECT id FROM memories`));
    expect(seenByBob.rows).toEqual([]);
    const updatedByBob = await db.tx.inTenant(bob, (tx) =>
      tx.query(`UPDATE memories SET content = 'pwned' WHERE id = $1`, [memoryId]),
    );
    expect(updatedByBob.rowCount).toBe(0);
    await expect(
      db.tx.inTenant(bob, (tx) =>
        tx.query(
          `INSERT INTO memories (tenant_id, owner_id, content, content_hash) VALUES ($1, $2, 'x', '\\x00')`,
          [alice.tenantId, alice.userId],
        ),
      ),
    ).rejects.toThrow(/row-level security/);
    // The definer check an edit runs (migration 1763700000035) sees alice's row from bob's transaction.
    const taken = await db.tx.inTenant(bob, (tx) =>
      tx.query<{ taken: boolean }>(`SELECT memory_content_taken($1, $2, 0) AS taken`, [
        alice.userId,
        sha256('deploys go through the blue cluster'),
      ]),
    );
    expect(taken.rows).toEqual([{ taken: true }]);
  });

  it('has pgvector', async () => {
    const rows = await db.dataSource.query(`SELECT '[1,2,3]'::vector <=> '[1,2,4]'::vector AS distance`);
    expect(rows[0].distance).toBeCloseTo(1 - 17 / Math.sqrt(14 * 21), 6);
    await db.dataSource.query(
      `CREATE TEMP TABLE v (e vector(3)); CREATE INDEX ON v USING hnsw (e vector_cosine_ops)`,
    );
  });

  it('answers every pooled connection with its own results under concurrent load', async () => {
    const big = 'x'.repeat(200_000); // spans several TCP reads
    const results = await Promise.all(
      Array.from({ length: pg.poolSize * 3 }, (_, k) =>
        k % 2 === 0
          ? db.dataSource.query(`SELECT length($1::text) AS n, ${k} AS k${k}`, [big])
          : db.tx.inTenant(alice, (tx) =>
              tx.query(`SELECT $1::int AS n, ${k} AS k${k}, count(*) FROM memories`, [k]),
            ),
      ),
    );
    results.forEach((result, k) => {
      const row = Array.isArray(result) ? result[0] : result.rows[0];
      expect(row[`k${k}`]).toBe(k);
      expect(row.n).toBe(k % 2 === 0 ? big.length : k);
    });
  });

  it("does not let another connection's statement run in the middle of a Parse … Sync cycle", async () => {
    const port = Number(new URL(pg.url).port);
    const a = await RawClient.connect(port);
    const b = await RawClient.connect(port);
    try {
      a.send(parse('SELECT 1 AS from_a'));
      await new Promise((r) => setTimeout(r, 100));
      b.send(parse('SELECT 2 AS from_b'), bind(), describePortal(), execute(), sync());
      await new Promise((r) => setTimeout(r, 300));
      expect(b.received()).not.toContain('from_b'); // waits for a's cycle to end
      a.send(bind(), describePortal(), execute(), sync());
      await a.waitFor('from_a');
      await b.waitFor('from_b');
      expect(a.received()).not.toContain('from_b');
    } finally {
      a.close();
      b.close();
    }
  });

  it('refuses a second instance on the same data directory', async () => {
    await expect(startEmbeddedPostgres({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
  });

  it('keeps the data across a restart, and migrations are then a no-op', async () => {
    await db.close();
    await pg.close();
    await pg.close(); // idempotent

    pg = await startEmbeddedPostgres({ dataDir });
    db = await open(pg);
    expect((await runMigrations(db.dataSource)).applied).toEqual([]);
    const rows = await db.tx.inTenant(alice, (tx) =>
      tx.query(`SELECT content FROM memories WHERE id = $1`, [memoryId]),
    );
    expect(rows.rows).toEqual([{ content: 'deploys go through the blue cluster' }]);
    expect((await db.tx.inTenant(bob, (tx) => tx.query(`SELECT id FROM memories`))).rows).toEqual([]);
  });
});

describe('embedded Postgres data directory lock', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memsvc-embedded-lock-'));
  let other: ChildProcess | undefined;

  afterAll(() => {
    other?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails with a clear error while another live process holds the directory', async () => {
    other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const lock = { pid: other.pid, host: hostname(), since: new Date().toISOString() };
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify(lock));
    const attempt = startEmbeddedPostgres({ dataDir });
    await expect(attempt).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(attempt).rejects.toThrow(
      new RegExp(`in use by process ${other.pid}.*delete .*${LOCK_FILE}`),
    );
  });

  it('takes over a lock left by a process that no longer exists', async () => {
    other?.kill();
    await new Promise((r) => other?.once('exit', r));
    const pg = await startEmbeddedPostgres({ dataDir });
    try {
      const ds = createDataSource({
        url: pg.url,
        poolSize: 1,
        statementTimeoutMs: 10_000,
        applicationName: 't',
      });
      await ds.initialize();
      expect(await ds.query(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
      await ds.destroy();
    } finally {
      await pg.close();
    }
  });
});

/** A bare wire-protocol client: lets the test split one extended-protocol cycle in two. */
class RawClient {
  private data = Buffer.alloc(0);
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => (this.data = Buffer.concat([this.data, chunk])));
  }

  static async connect(port: number): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const client = new RawClient(socket);
    const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
    const header = Buffer.alloc(8);
    header.writeInt32BE(8 + params.length, 0);
    header.writeInt32BE(196608, 4); // protocol 3.0
    socket.write(Buffer.concat([header, params]));
    await client.waitFor('Z'); // ReadyForQuery
    return client;
  }

  send(...messages: Buffer[]): void {
    this.socket.write(Buffer.concat(messages));
  }

  received(): string {
    return this.data.toString('latin1');
  }

  async waitFor(text: string, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.received().includes(text)) {
      if (Date.now() > deadline) throw new Error(`no "${text}" in ${JSON.stringify(this.received())}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

function frame(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}
const cstring = (s: string): Buffer => Buffer.from(`${s}\0`);
const int16 = (n: number): Buffer => Buffer.from([n >> 8, n & 0xff]);
const parse = (sql: string): Buffer => frame('P', cstring(''), cstring(sql), int16(0));
const bind = (): Buffer => frame('B', cstring(''), cstring(''), int16(0), int16(0), int16(0));
const describePortal = (): Buffer => frame('D', Buffer.from('P'), cstring(''));
const execute = (): Buffer => frame('E', cstring(''), Buffer.alloc(4));
const sync = (): Buffer => frame('S');

describe('startMigratedEmbeddedPostgres', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memsvc-migrated-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('applies every migration on a fresh directory, restarts the cluster, and applies none the next time', async () => {
    const logged: string[] = [];
    const logger = { log: (m: string) => void logged.push(m), warn: () => undefined };
    const first = await startMigratedEmbeddedPostgres({ dataDir, statementTimeoutMs: 120_000, logger });
    try {
      expect(logged.filter((m) => m.startsWith('embedded Postgres (PGlite) ready'))).toHaveLength(2);
      expect(logged).toContain(`applied ${MIGRATIONS.length} migrations; restarting the embedded cluster`);
      const db = await open(first);
      const [{ n }] = (await db.dataSource.query(`SELECT count(*)::int AS n FROM schema_migrations`)) as {
        n: number;
      }[];
      expect(n).toBe(MIGRATIONS.length);
      // A buffer pool a single user's data fits in (EMBEDDED_SETTINGS): WebAssembly memory never shrinks.
      const [{ setting }] = (await db.dataSource.query(
        `SELECT current_setting('shared_buffers') AS setting`,
      )) as {
        setting: string;
      }[];
      expect(setting).toBe('32MB');
      await db.close();
    } finally {
      await first.close();
    }
    logged.length = 0;
    const again = await startMigratedEmbeddedPostgres({ dataDir, statementTimeoutMs: 120_000, logger });
    await again.close();
    expect(logged.filter((m) => m.startsWith('embedded Postgres (PGlite) ready'))).toHaveLength(1);
  }, 240_000);
});
