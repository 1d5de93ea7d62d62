import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { createDataSource, initializeDataSource } from './data-source.factory';
import { runMigrations } from './migration-runner';
import { ServerSecretRepository } from './server-secret.repository';
import { TransactionRunner } from './transaction-runner';

/**
 * A statement's answer may come this long after the server's statement timeout fired before the
 * connection counts as lost (the timeout's own error answers first whenever the server is reachable).
 */
const ANSWER_MARGIN_MS = 1_000;

export interface PersistenceModuleOptions {
  readonly applicationName: string;
  /** Apply pending migrations while starting (guarded by the advisory lock). */
  readonly migrate: boolean;
}

@Global()
@Module({})
export class PersistenceModule implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

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
          useFactory: (dataSource: DataSource, config: AppConfig) =>
            new TransactionRunner(dataSource, config.database.appRole, {
              preparedStatements: config.mode === 'server',
              pipelining: config.mode === 'server',
              answerTimeoutMs:
                config.mode === 'server' ? config.database.statementTimeoutMs + ANSWER_MARGIN_MS : undefined,
            }),
        },
        ServerSecretRepository,
      ],
      exports: [DataSource, TransactionRunner, ServerSecretRepository],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
