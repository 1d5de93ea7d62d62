import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './chaos/free-port';
import { processAlive } from './chaos/process-alive';

const run = promisify(execFile);

/** Temporary data directories are named `streaming-replica-<pid>-*`: the pid says whether their run still runs. */
const DIR_PREFIX = 'streaming-replica-';
const DIR_NAME = /^streaming-replica-(\d+)-/;
const FALLBACK_BIN_DIR = '/usr/lib/postgresql/15/bin';
/** A hot standby refuses to start when one of these is lower than on its primary. */
const AT_LEAST_PRIMARY = {
  max_connections: 200,
  max_worker_processes: 8,
  max_wal_senders: 10,
  max_prepared_transactions: 0,
  max_locks_per_transaction: 64,
};

export interface StreamingReplicaOptions {
  /** A superuser URL of the primary, e.g. `postgres://postgres@127.0.0.1:5432/postgres`. */
  readonly primaryUrl: string;
  /** The replica's port on 127.0.0.1; a free one when left out. */
  readonly port?: number;
}

/** A hot standby of the primary, streaming its WAL, in a temporary data directory of its own. */
export interface StreamingReplica {
  readonly port: number;
  /** `databaseUrl` (any database of the primary) pointed at the replica: 127.0.0.1 and its port. */
  urlFor(databaseUrl: string): string;
  /** The last WAL position the replica replayed, e.g. `0/3000148`. */
  replayLsn(): Promise<string>;
  /** Waits until the replica has replayed the WAL up to `lsn` (default timeout 30 s). */
  waitForReplay(lsn: string, timeoutMs?: number): Promise<void>;
  /** Waits until the replica has replayed everything the primary had written when called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** `pg_ctl stop -m fast`: connections are closed, the data directory is kept. */
  stop(): Promise<void>;
  /** Starts a stopped replica and waits until it accepts read-only connections. */
  start(): Promise<void>;
  /** Stops the replica (when running) and deletes its data directory. */
  destroy(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `check` until it returns true, retrying its errors too (a replica starting up refuses
 * connections); past the deadline, throws `failure` with the last error or the last note.
 */
async function pollUntil(
  check: (note: (text: string) => void) => Promise<boolean>,
  timeoutMs: number,
  failure: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    try {
      if (await check((text) => (last = text))) return;
    } catch (error) {
      last = String(error);
    }
    if (Date.now() > deadline) throw new Error(`${failure}: ${last}`);
    await sleep(50);
  }
}

/** A string literal for postgresql.conf. */
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Runs a Postgres tool as the `postgres` user: `pg_ctl` refuses root, and the files must be theirs. */
async function asPostgres(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<string> {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', command, ...args]]
    : [command, [...args]];
  try {
    const { stdout } = await run(file, argv, { ...options, timeout: 180_000 });
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${stderr || stdout || String(error)}`);
  }
}

/** Runs `sql` on a connection of its own and returns the first row. */
async function queryOne<T>(url: string, sql: string, values: unknown[] = []): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows[0] as T;
  } finally {
    await client.end();
  }
}

/** Makes `path` the `postgres` user's when this process is root (the server runs as `postgres`). */
async function giveToPostgres(path: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  await chown(path, await id('-u'), await id('-g'));
}

/** The primary's major version's binaries (Debian layout), else `pg_config --bindir`. */
async function binDirFor(major: string): Promise<string> {
  const debian = `/usr/lib/postgresql/${major}/bin`;
  if (existsSync(join(debian, 'pg_ctl'))) return debian;
  try {
    return (await run('pg_config', ['--bindir'])).stdout.trim();
  } catch {
    return FALLBACK_BIN_DIR;
  }
}

/** Stops and deletes replicas a run that was killed left behind (their pid is gone). */
async function dropAbandonedReplicas(binDir: string): Promise<void> {
  const root = tmpdir();
  for (const name of await readdir(root).catch(() => [])) {
    const pid = DIR_NAME.exec(name)?.[1];
    if (pid === undefined || processAlive(Number(pid))) continue;
    const dir = join(root, name);
    if (existsSync(join(dir, 'postmaster.pid'))) {
      await asPostgres(join(binDir, 'pg_ctl'), ['-D', dir, '-m', 'immediate', '-w', 'stop'], {
        cwd: dir,
      }).catch(() => undefined);
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The replica's own postgresql.conf: Debian keeps the primary's outside its data directory, so the
 * copy has none. Settings a standby needs at least as high as its primary take the primary's values
 * when those are higher; the time zone and date style follow the primary's so results read the same.
 */
async function replicaConfig(primaryUrl: string, dir: string, port: number): Promise<string> {
  const names = [...Object.keys(AT_LEAST_PRIMARY), 'TimeZone', 'DateStyle'];
  const client = new Client({ connectionString: primaryUrl });
  await client.connect();
  const settings = new Map<string, string>();
  try {
    const { rows } = await client.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name = ANY($1)`,
      [names],
    );
    for (const row of rows) settings.set(row.name, row.setting);
  } finally {
    await client.end();
  }
  const atLeast = Object.entries(AT_LEAST_PRIMARY).map(
    ([name, floor]) => `${name} = ${Math.max(floor, Number(settings.get(name) ?? 0))}`,
  );
  return [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = ${literal(dir)}`,
    `hot_standby = on`,
    `hot_standby_feedback = on`,
    ...atLeast,
    `shared_buffers = 32MB`,
    // A test replica is rebuilt from the primary, never recovered from a crash.
    `fsync = off`,
    `TimeZone = ${literal(settings.get('TimeZone') ?? 'UTC')}`,
    `DateStyle = ${literal(settings.get('DateStyle') ?? 'ISO, MDY')}`,
    '',
  ].join('\n');
}

/**
 * Drops from the copied postgresql.auto.conf (ALTER SYSTEM on the primary) every setting the
 * replica's postgresql.conf sets, since the auto file is read last; keeps the `primary_conninfo`
 * `pg_basebackup -R` appended.
 */
async function keepAutoConfFromOverriding(dir: string, config: string): Promise<void> {
  const path = join(dir, 'postgresql.auto.conf');
  const key = (line: string) => line.split('=')[0].trim().toLowerCase();
  const ours = new Set(config.split('\n').map(key).filter(Boolean));
  const lines = (await readFile(path, 'utf8')).split('\n');
  const kept = lines.filter((line) => !ours.has(key(line)));
  await writeFile(path, kept.join('\n'));
}

/**
 * Starts a hot standby of the primary at `primaryUrl` on 127.0.0.1: `pg_basebackup -X stream -R` of
 * the whole cluster into a fresh temporary directory, its own postgresql.conf and trust pg_hba.conf,
 * then `pg_ctl start`. Resolves once it accepts connections in recovery. Needs a `replication` line
 * for 127.0.0.1 in the primary's pg_hba.conf (scripts/ensure-services.sh adds it), and root or the
 * `postgres` user. `destroy()` removes it; one a killed run left behind is removed by the next start.
 */
export async function startStreamingReplica(options: StreamingReplicaOptions): Promise<StreamingReplica> {
  const primary = new URL(options.primaryUrl);
  const { major } = await queryOne<{ major: number }>(
    options.primaryUrl,
    `SELECT current_setting('server_version_num')::int / 10000 AS major`,
  );
  const binDir = await binDirFor(String(major));
  await dropAbandonedReplicas(binDir);

  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  const pgCtl = (args: readonly string[]) =>
    asPostgres(join(binDir, 'pg_ctl'), ['-D', dir, ...args], { cwd: dir });

  const urlFor = (databaseUrl: string): string => {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.toString();
  };

  /** Waits until the replica takes connections and reports it is in recovery. */
  const waitUntilReady = () =>
    pollUntil(
      async (note) => {
        const { recovering } = await queryOne<{ recovering: boolean }>(
          urlFor(options.primaryUrl),
          `SELECT pg_is_in_recovery() AS recovering`,
        );
        note('it is not in recovery (was it promoted?)');
        return recovering;
      },
      60_000,
      `the replica on port ${port} is not ready`,
    );

  const start = async (): Promise<void> => {
    try {
      await pgCtl(['-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    } catch (error) {
      const log = await readFile(join(dir, 'log'), 'utf8').catch(() => '');
      throw new Error(`${(error as Error).message}\n${log.split('\n').slice(-20).join('\n')}`);
    }
    await waitUntilReady();
  };

  const running = () =>
    pgCtl(['status']).then(
      () => true,
      () => false,
    );

  const replica: StreamingReplica = {
    port,
    urlFor,
    replayLsn: async () =>
      (
        await queryOne<{ lsn: string }>(
          urlFor(options.primaryUrl),
          `SELECT pg_last_wal_replay_lsn()::text AS lsn`,
        )
      ).lsn,
    waitForReplay: (lsn, timeoutMs = 30_000) =>
      pollUntil(
        async (note) => {
          const row = await queryOne<{ done: boolean; at: string | null }>(
            urlFor(options.primaryUrl),
            `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done, pg_last_wal_replay_lsn()::text AS at`,
            [lsn],
          );
          note(`replayed up to ${row.at ?? 'nothing'}`);
          return row.done;
        },
        timeoutMs,
        `the replica did not replay up to ${lsn} in ${timeoutMs} ms`,
      ),
    caughtUp: async (timeoutMs) => {
      const { lsn } = await queryOne<{ lsn: string }>(
        options.primaryUrl,
        `SELECT pg_current_wal_lsn()::text AS lsn`,
      );
      await replica.waitForReplay(lsn, timeoutMs);
    },
    stop: async () => {
      await pgCtl(['-m', 'fast', '-w', '-t', '60', 'stop']);
    },
    start,
    destroy: async () => {
      if (existsSync(dir) && (await running())) {
        // Deleting the files under a live server would leave it running: stop it however it takes.
        await replica.stop().catch(() => pgCtl(['-m', 'immediate', '-w', 'stop']));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };

  try {
    await giveToPostgres(dir);
    const env = primary.password
      ? { ...process.env, PGPASSWORD: decodeURIComponent(primary.password) }
      : undefined;
    await asPostgres(
      join(binDir, 'pg_basebackup'),
      [
        ...['-h', primary.hostname || '127.0.0.1', '-p', primary.port || '5432'],
        ...['-U', decodeURIComponent(primary.username) || 'postgres'],
        // A fast checkpoint: the default spread one can take minutes on an idle primary.
        ...['-D', dir, '-X', 'stream', '-R', '-c', 'fast'],
      ],
      { cwd: dir, env },
    );
    for (const leftover of ['postmaster.pid', 'postmaster.opts'])
      await rm(join(dir, leftover), { force: true });
    const config = await replicaConfig(options.primaryUrl, dir, port);
    const files: Record<string, string> = {
      'postgresql.conf': config,
      'pg_hba.conf': 'local all all trust\nhost all all 127.0.0.1/32 trust\n',
      'pg_ident.conf': '',
    };
    for (const [name, text] of Object.entries(files)) {
      await writeFile(join(dir, name), text, { mode: 0o600 });
      await giveToPostgres(join(dir, name));
    }
    await keepAutoConfFromOverriding(dir, config);
    await start();
  } catch (error) {
    await replica.destroy().catch(() => undefined);
    throw error;
  }
  return replica;
}
