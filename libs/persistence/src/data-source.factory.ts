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
