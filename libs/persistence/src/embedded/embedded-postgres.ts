import { resolve, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { createDataSource, initializeDataSource } from '../data-source.factory';
import { runMigrations } from '../migration-runner';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock';
import { guardWireProtocolCycles } from './wire-protocol-guard';

/**
 * Connections the application's `pg` pool may open.
 *
 * PGlite is one single-user Postgres backend; pglite-socket 0.2.17 accepts up to
 * `maxConnections` sockets (default 1) and feeds their messages to that backend one at a time,
 * serving only the connection that has a transaction (or, with our guard, a protocol cycle)
 * open until it ends. More connections add no throughput, but the pool needs at least two:
 * the migration runner holds one for the advisory lock while TypeORM migrates on another, and
 * the outbox relay, the in-process queue and requests must not wait on each other's checkout.
 */
export const EMBEDDED_POOL_SIZE = 4;

/**
 * The socket server's limit, above the pool size: when the pool drops an idle connection and
 * opens a new one at once, the server may not have seen the old socket close yet, and a
 * connection over the limit is refused ("Too many connections").
 */
export const EMBEDDED_MAX_CONNECTIONS = EMBEDDED_POOL_SIZE * 2;

/**
 * Settings of the embedded cluster beyond PGlite's defaults. Its memory is WebAssembly memory, which
 * grows with what Postgres touches and is never given back: a buffer pool a single user's data fits in
 * (`shared_buffers`, default 128 MB) keeps the idle process small.
 */
export const EMBEDDED_SETTINGS = ['-c', 'shared_buffers=32MB'];

/**
 * PGlite's Postgres is one WebAssembly module. V8 compiles it with its baseline compiler (Liftoff)
 * and recompiles hot functions with its optimizing one (TurboFan) in the background; Postgres' hot
 * paths recompiled take 50–60 MB of code. Measured on a migrated data directory, PGlite alone, 6,000
 * catalog-join and text-search queries: baseline only 141 MB against 193–202 MB resident, 3.3 s
 * against 2.9–3.0 s (10% slower once warm), and faster until warm (the first 600 queries 0.39 s
 * against 0.73 s: no recompilation on the way). A one-developer service idles far more than it
 * queries, and recall's text index is in the process, so the embedded database runs baseline code.
 * The flag is process-wide and read when a module is compiled: set before PGlite compiles its own.
 */
export const EMBEDDED_WASM_FLAGS = '--liftoff-only';

/** Nest's Logger and console both fit. */
export interface EmbeddedPostgresLogger {
  log(message: string): void;
  warn(message: string): void;
}

export interface EmbeddedPostgresOptions {
  /** DATA_DIR; the cluster lives in `<dataDir>/pgdata`, the lock in `<dataDir>/pgdata.lock`. */
  readonly dataDir: string;
  readonly logger?: EmbeddedPostgresLogger;
}

export interface EmbeddedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, for `createDataSource`. */
  readonly url: string;
  /** Never larger than the socket server's connection limit. */
  readonly poolSize: number;
  readonly dataDir: string;
  /**
   * Stops accepting connections, checkpoints, shuts PGlite down and releases the data dir.
   * Destroy the DataSource first so no query is cut off. Safe to call twice.
   */
  close(): Promise<void>;
}

const SILENT: EmbeddedPostgresLogger = { log: () => undefined, warn: () => undefined };

/**
 * Starts PGlite (Postgres in WASM, with pgvector) on `<dataDir>/pgdata` and serves it on a free
 * 127.0.0.1 port, so the same TypeORM/`pg` code and migrations run unchanged in embedded mode.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const logger = options.logger ?? SILENT;
  const dataDir = resolve(options.dataDir);
  const pgdata = join(dataDir, 'pgdata');
  const lock = acquireDataDirLock(dataDir);

  const running: Running = { db: undefined, server: undefined, lock, logger };
  try {
    const started = Date.now();
    setFlagsFromString(EMBEDDED_WASM_FLAGS);
    const db = await PGlite.create({
      dataDir: pgdata,
      extensions: { vector },
      startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS],
    });
    running.db = db;
    const server = new PGLiteSocketServer({
      db: guardWireProtocolCycles(db),
      host: '127.0.0.1',
      port: 0,
      maxConnections: EMBEDDED_MAX_CONNECTIONS,
    });
    running.server = server;
    await server.start();
    logger.log(`embedded Postgres (PGlite) ready in ${Date.now() - started} ms, data in ${pgdata}`);
    return {
      url: `postgres://postgres@${server.getServerConn()}/postgres`,
      poolSize: EMBEDDED_POOL_SIZE,
      dataDir,
      close: once(() => shutdown(running)),
    };
  } catch (error) {
    await shutdown(running).catch(() => undefined);
    throw error;
  }
}

/**
 * Starts the embedded cluster with its schema up to date. Pending migrations run on a first PGlite
 * instance, which is then closed and replaced by a fresh one when any ran: WebAssembly memory only
 * grows, and a fresh data directory's migrations leave ~90 MB touched that serving never needs.
 * `statementTimeoutMs` bounds each migration statement (DATABASE_STATEMENT_TIMEOUT_MS).
 */
export async function startMigratedEmbeddedPostgres(
  options: EmbeddedPostgresOptions & { readonly statementTimeoutMs: number },
): Promise<EmbeddedPostgres> {
  const first = await startEmbeddedPostgres(options);
  let applied: readonly string[];
  try {
    const dataSource = createDataSource({
      url: first.url,
      poolSize: 2,
      statementTimeoutMs: options.statementTimeoutMs,
      applicationName: 'memory-migrate',
    });
    await initializeDataSource(dataSource);
    try {
      applied = (await runMigrations(dataSource)).applied;
    } finally {
      await dataSource.destroy();
    }
  } catch (error) {
    await first.close();
    throw error;
  }
  if (applied.length === 0) return first;
  (options.logger ?? SILENT).log(`applied ${applied.length} migrations; restarting the embedded cluster`);
  await first.close();
  return startEmbeddedPostgres(options);
}

interface Running {
  db: PGlite | undefined;
  server: PGLiteSocketServer | undefined;
  readonly lock: DataDirLock;
  readonly logger: EmbeddedPostgresLogger;
}

async function shutdown({ db, server, lock, logger }: Running): Promise<void> {
  try {
    await server?.stop();
    if (db && !db.closed) {
      // Flush dirty pages now so the next start does not depend on WAL replay.
      await db
        .exec('CHECKPOINT')
        .catch((error: unknown) => logger.warn(`checkpoint before close failed: ${String(error)}`));
      await db.close();
    }
  } finally {
    lock.release();
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
