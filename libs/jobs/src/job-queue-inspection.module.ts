import { type DynamicModule, Inject, Injectable, Module, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { BullMqJobInspector } from './drivers/bullmq-inspector';
import { BullMqJobQueue } from './drivers/bullmq.driver';
import { AttachedJobInspector, JOB_INSPECTOR } from './job-inspector.port';
import { JobsModule } from './jobs.module';

const INSPECTED_QUEUE = Symbol('INSPECTED_QUEUE');

/** Closes the inspected queue's Redis connections with the application context. */
@Injectable()
class InspectedQueueCloser implements OnModuleDestroy {
  constructor(@Inject(INSPECTED_QUEUE) private readonly queue: BullMqJobQueue) {}

  async onModuleDestroy(): Promise<void> {
    await this.queue.close();
  }
}

/**
 * The job queue in Redis, read (and retried or cancelled) by a process with no job runtime: the
 * CLI's `jobs` commands. Attaches a BullMQ inspector to JobsModule's JOB_INSPECTOR, so the admin
 * job use cases answer as a server's do; nothing is consumed or relayed. Needs REDIS_URL.
 */
@Module({})
export class JobQueueInspectionModule {
  static forRoot(options: { readonly client: string }): DynamicModule {
    return {
      module: JobQueueInspectionModule,
      imports: [JobsModule],
      providers: [
        {
          provide: INSPECTED_QUEUE,
          inject: [APP_CONFIG, JOB_INSPECTOR],
          useFactory: (config: AppConfig, inspector: AttachedJobInspector) => {
            const { url, queuePrefix } = config.redis;
            if (!url) throw new Error('REDIS_URL is not set: the job queue lives in Redis');
            const queue = new BullMqJobQueue({
              url,
              prefix: queuePrefix,
              connectionName: `${queuePrefix}-${options.client}`,
            });
            inspector.attach(new BullMqJobInspector((name) => queue.queueFor(name)));
            return queue;
          },
        },
        InspectedQueueCloser,
      ],
    };
  }
}
