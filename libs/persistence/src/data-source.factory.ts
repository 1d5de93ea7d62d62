import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '@app/migrations';

export const MIGRATIONS_TABLE = 'schema_migrations';

export interface DataSourceOptions {
  readonly url: string;
  readonly poolSize: number;
  readonly statementTimeoutMs: number;
  readonly applicationName: string;
}

/** One TypeORM DataSource over `pg`; SQL lives in repositories and migrations, so no entities are mapped. */
export function createDataSource(options: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    applicationName: options.applicationName,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    entities: [],
    synchronize: false,
    logging: false,
    extra: {
      max: options.poolSize,
      // Waiting for a pooled connection or a new one's handshake: no longer than a statement may run.
      connectionTimeoutMillis: Math.min(10_000, options.statementTimeoutMs),
      idleTimeoutMillis: 30_000,
      statement_timeout: options.statementTimeoutMs,
      // Every statement here is short OLTP work; on a large team the planner's estimates pass
      // jit_above_cost and compiling took ~500 ms where running took 50–100 ms (startup context on
      // 100k team memories). Off for the whole connection, so no query pays for it.
      options: '-c jit=off',
      // A broken TCP connection must fail queries instead of hanging them.
      keepAlive: true,
    },
  });
}

/**
 * Initializes the DataSource and keeps every pooled connection's errors handled for its whole life.
 * TypeORM listens to a connection only while a query runner holds it and the pool only while it is
 * idle; a connection being discarded (released with an error, or closed after a statement got no
 * answer in time) has no listener left, and a late message on it — a server shutting down sends
 * FATAL 57P01 to every session — would be an unhandled 'error' that ends the process. The work on
 * such a connection has already failed (and answered 503); this listener only keeps the process up.
 */
export async function initializeDataSource(dataSource: DataSource): Promise<DataSource> {
  await dataSource.initialize();
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (!pool) return dataSource;
  const guarded = new WeakSet<PoolClient>();
  const guard = (client: PoolClient) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', () => undefined);
  };
  pool.on('connect', guard);
  // Connections made while initializing (the version check) are in the pool already.
  for (const client of (pool as unknown as { _clients?: PoolClient[] })._clients ?? []) guard(client);
  return dataSource;
}
