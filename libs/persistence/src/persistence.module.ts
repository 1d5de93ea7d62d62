import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { createDataSource, initializeDataSource } from './data-source.factory';
import { runMigrations } from './migration-runner';
import { ServerSecretRepository } from './server-secret.repository';
import { TransactionRunner } from './transaction-runner';
import { ReplicaReads } from './replicas/replica-reads';
import { LocalWritePositions, type WritePositions } from './replicas/write-positions';

/** The read replicas' router, or null where every read goes to the primary. */
export const REPLICA_READS = Symbol('REPLICA_READS');

/**
 * A statement's answer may come this long after the server's statement timeout fired before the
 * connection counts as lost (the timeout's own error answers first whenever the server is reachable).
 */
const ANSWER_MARGIN_MS = 1_000;

export interface PersistenceModuleOptions {
  readonly applicationName: string;
  /** Apply pending migrations while starting (guarded by the advisory lock). */
  readonly migrate: boolean;
  /**
   * Serve read-only work from the replicas in DATABASE_REPLICA_URLS, keeping each user's last write
   * position where `writePositions` says: shared by the API processes (Redis) so that any of them
   * serves a user's reads after its writes; this process's memory when absent. Unset: every read
   * goes to the primary (the worker's jobs read what an outbox row announced, which a replica may
   * not hold yet).
   */
  readonly readReplicas?: { readonly writePositions?: (config: AppConfig) => WritePositions };
}

@Global()
@Module({})
export class PersistenceModule implements OnApplicationShutdown {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(REPLICA_READS)
    private readonly replicas: {
      reads: ReplicaReads;
      sources: DataSource[];
      positions: WritePositions;
    } | null,
  ) {}

  static forRoot(options: PersistenceModuleOptions): DynamicModule {
    return {
      module: PersistenceModule,
      providers: [
        {
          provide: DataSource,
          inject: [APP_CONFIG],
          useFactory: async (config: AppConfig) => {
            if (!config.database.url)
              throw new Error('database URL is not set (embedded database not started?)');
            const dataSource = createDataSource({
              url: config.database.url,
              poolSize: config.database.poolSize,
              statementTimeoutMs: config.database.statementTimeoutMs,
              applicationName: options.applicationName,
            });
            await initializeDataSource(dataSource);
            if (options.migrate && config.database.runMigrations) {
              const result = await runMigrations(dataSource);
              if (result.applied.length > 0) {
                new Logger('Migrations').log(
                  `applied ${result.applied.length}: ${result.applied.join(', ')}`,
                );
              }
            }
            return dataSource;
          },
        },
        {
          provide: TransactionRunner,
          inject: [DataSource, APP_CONFIG],
          useFactory: (dataSource: DataSource, config: AppConfig) => runnerFor(dataSource, config),
        },
        {
          provide: REPLICA_READS,
          inject: [TransactionRunner, APP_CONFIG],
          useFactory: async (primary: TransactionRunner, config: AppConfig) => {
            const urls = config.mode === 'server' && options.readReplicas ? config.database.replicaUrls : [];
            if (urls.length === 0) return null;
            const sources = urls.map((url, i) =>
              createDataSource({
                url,
                poolSize: config.database.poolSize,
                statementTimeoutMs: config.database.statementTimeoutMs,
                applicationName: `${options.applicationName}-replica-${i + 1}`,
              }),
            );
            const positions = options.readReplicas?.writePositions?.(config) ?? new LocalWritePositions();
            const reads = new ReplicaReads(
              primary,
              sources.map((source, i) => ({
                name: `replica-${i + 1}`,
                runner: runnerFor(source, config),
                // A replica down at start is only out of rotation: it is connected once it answers.
                connect: connectOnce(source),
              })),
              positions,
              { maxLagMs: config.database.replicaMaxLagMs, maxWaitMs: config.database.replicaMaxWaitMs },
            );
            await reads.start();
            primary.readFrom(reads);
            return { reads, sources, positions };
          },
        },
        ServerSecretRepository,
      ],
      exports: [DataSource, TransactionRunner, ServerSecretRepository, REPLICA_READS],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.replicas) {
      await this.replicas.reads.stop();
      await this.replicas.positions.close?.();
      for (const source of this.replicas.sources) if (source.isInitialized) await source.destroy();
    }
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** Initializes `source` when it is not yet, one attempt at a time. */
function connectOnce(source: DataSource): () => Promise<void> {
  let connecting: Promise<unknown> | undefined;
  return async () => {
    if (source.isInitialized) return;
    connecting ??= initializeDataSource(source).finally(() => (connecting = undefined));
    await connecting;
  };
}

function runnerFor(dataSource: DataSource, config: AppConfig): TransactionRunner {
  return new TransactionRunner(dataSource, config.database.appRole, {
    preparedStatements: config.mode === 'server',
    pipelining: config.mode === 'server',
    answerTimeoutMs:
      config.mode === 'server' ? config.database.statementTimeoutMs + ANSWER_MARGIN_MS : undefined,
  });
}
