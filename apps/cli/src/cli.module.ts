import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { type AppConfig, ConfigModule } from '@app/config';
import { PersistenceModule } from '@app/persistence';
import { MemoriesModule } from '@app/memories';
import { TenancyModule } from '@app/tenancy';

/**
 * The CLI's object graph, from the modules the servers import: the same connection pool and
 * transaction runner (with the answer timeout that turns an unreachable Postgres into an error
 * instead of a hang), migrations left to `migrate`, the tenancy use cases, and the memories' (export,
 * import, user deletion, the secret migration's producer side) with the installation's secret store.
 * No HTTP, no queue runtime: jobs are recorded in the outbox for the workers.
 */
@Module({})
export class CliModule {
  /** `features`: what the running command needs besides (CliContext.include). */
  static forRoot(
    config: AppConfig,
    features: ReadonlyArray<Type<unknown> | DynamicModule> = [],
  ): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        PersistenceModule.forRoot({ applicationName: 'memory-cli', migrate: false }),
        TenancyModule,
        MemoriesModule,
        ...features,
      ],
    };
  }
}
