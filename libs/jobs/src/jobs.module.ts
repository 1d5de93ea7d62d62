import {
  DynamicModule,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import type { Registry } from 'prom-client';
import { DiscoveryModule } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { METRICS_REGISTRY } from '@app/observability';
import { ServerSecretRepository, TransactionRunner } from '@app/persistence';
import { BullMqJobConsumer, BullMqJobQueue } from './drivers/bullmq.driver';
import { InProcessJobQueue } from './drivers/in-process.driver';
import { JobExecutor } from './job-executor';
import { configuredJobPolicy } from './job-policies';
import { JobHandlerRegistry } from './job-handler.registry';
import { registerJobMetrics } from './job-metrics';
import { JOB_CONSUMER, JOB_QUEUE, type JobConsumer, type JobQueue } from './job-queue.port';
import { OutboxRelay } from './outbox/outbox-relay';
import { OutboxWriter } from './outbox-writer';
import { AdminJobRepository } from './admin-jobs/admin-job.repository';
import { GetAdminJobUseCase } from './admin-jobs/get-admin-job.use-case';
import { GetJobUseCase } from './admin-jobs/get-job.use-case';
import { AdminJobLookup } from './admin-jobs/admin-job-lookup';
import { CancelAdminJobUseCase } from './admin-jobs/cancel-admin-job.use-case';
import { ListAdminJobsUseCase } from './admin-jobs/list-admin-jobs.use-case';
import { RetryAdminJobUseCase } from './admin-jobs/retry-admin-job.use-case';
import { ShowAdminJobUseCase } from './admin-jobs/show-admin-job.use-case';
import { GetTenantStatsUseCase } from './admin-stats/get-tenant-stats.use-case';
import { TenantStatsRepository } from './admin-stats/tenant-stats.repository';
import { BullMqJobInspector } from './drivers/bullmq-inspector';
import { AttachedJobInspector, JOB_INSPECTOR, type JobInspector } from './job-inspector.port';
import { JobHandlerDiscovery } from './job-handler.discovery';
import { SlotScheduler } from './slot-scheduler';
import { AnalyzeStatisticsJob } from './maintenance/analyze-statistics.job';
import { PurgeAuditLogJob } from './maintenance/purge-audit-log.job';
import { PurgeOutboxJob } from './maintenance/purge-outbox.job';
import { TenancyModule } from '@app/tenancy';
import { INSTALLATION_ID, loadInstallationId } from './installation';

export type JobsRole = 'api' | 'worker';

export interface JobsModuleOptions {
  /** `worker` consumes jobs; `api` only produces, except with the in-process driver (embedded). */
  readonly role: JobsRole;
}

export const JOBS_MODULE_OPTIONS = Symbol('JOBS_MODULE_OPTIONS');

function createQueue(config: AppConfig, executor: JobExecutor, role: JobsRole): JobQueue {
  if (config.redis.url) {
    return new BullMqJobQueue({
      url: config.redis.url,
      prefix: config.redis.queuePrefix,
      connectionName: `${config.redis.queuePrefix}-${role}-producer`,
      policy: configuredJobPolicy(config.webhooks),
    });
  }
  return new InProcessJobQueue(executor, {
    concurrency: config.worker.concurrency,
    policy: configuredJobPolicy(config.webhooks),
  });
}

function createConsumer(
  config: AppConfig,
  queue: JobQueue,
  executor: JobExecutor,
  registry: JobHandlerRegistry,
  role: JobsRole,
  installationId: string,
): JobConsumer | null {
  if (queue instanceof InProcessJobQueue) return queue;
  if (role !== 'worker' || !config.redis.url) return null;
  return new BullMqJobConsumer({
    url: config.redis.url,
    prefix: config.redis.queuePrefix,
    concurrency: config.worker.concurrency,
    jobNames: registry.jobNames(),
    executor,
    connectionName: `${config.redis.queuePrefix}-worker`,
    installationId,
  });
}

function createRelay(
  config: AppConfig,
  transactions: TransactionRunner,
  queue: JobQueue,
  installationId: string,
): OutboxRelay {
  return new OutboxRelay(transactions, queue, {
    installationId,
    batchSize: config.outbox.batchSize,
    pollIntervalMs: config.outbox.pollIntervalMs,
  });
}

/**
 * Starts the consumer and the relay once every module is initialised; drains them on shutdown.
 * Registers job and outbox metrics when the app has a metrics registry (ObservabilityModule).
 */
@Injectable()
export class JobsLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Jobs');
  private unregisterMetrics: (() => void) | undefined;
  private scheduler: SlotScheduler | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(JOB_CONSUMER) private readonly consumer: JobConsumer | null,
    @Inject(JobHandlerRegistry) private readonly registry: JobHandlerRegistry,
    @Inject(OutboxRelay) private readonly relay: OutboxRelay,
    @Inject(JobExecutor) private readonly executor: JobExecutor,
    @Inject(JobHandlerDiscovery) private readonly handlers: JobHandlerDiscovery,
    @Inject(INSTALLATION_ID) private readonly installationId: string,
    @Optional() @Inject(METRICS_REGISTRY) private readonly metrics?: Registry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.metrics) {
      this.unregisterMetrics = registerJobMetrics(this.metrics, {
        executor: this.executor,
        backlog: () => this.relay.backlog(),
      });
    }
    if (this.consumer) {
      // Handlers are discovered in onModuleInit, which has run for every module by now.
      this.registry.assertComplete();
      await this.consumer.start();
      // A producing-only API leaves scheduling to the consuming processes.
      this.scheduler = new SlotScheduler(this.queue, this.installationId);
      this.scheduler.start(this.handlers.schedules());
    }
    await this.relay.start();
    this.logger.log(`jobs: ${this.queue.driver} queue, ${this.consumer ? 'consuming' : 'producing only'}`);
  }

  async onModuleDestroy(): Promise<void> {
    this.scheduler?.stop();
    await this.relay.stop();
    if (this.consumer) await this.consumer.close(this.config.worker.shutdownGraceMs);
    await this.queue.close();
    this.unregisterMetrics?.();
  }
}

/** The admin job routes' use cases; they read the queue through JOB_INSPECTOR, attached by JobsRuntimeModule. */
const ADMIN_JOB_USE_CASES = [
  AdminJobLookup,
  ShowAdminJobUseCase,
  ListAdminJobsUseCase,
  RetryAdminJobUseCase,
  CancelAdminJobUseCase,
  GetTenantStatsUseCase,
];

/** The runtime's own inspector of its queue, handed to JobsModule's JOB_INSPECTOR. */
const RUNTIME_INSPECTOR = Symbol('RUNTIME_INSPECTOR');

function createInspector(queue: JobQueue): JobInspector {
  if (queue instanceof BullMqJobQueue) return new BullMqJobInspector((name) => queue.queueFor(name));
  return queue as InProcessJobQueue;
}

/**
 * What domain libs use to produce work and report on it: the outbox writer and the admin job
 * store. Import it where a use case records a job; the runtime (queue, relay, consumer) is the
 * apps' business, through JobsRuntimeModule.
 */
@Module({
  imports: [TenancyModule],
  // The maintenance jobs (`maintenance.analyze`, `audit.purge`, `outbox.purge`) live here: every composition imports this module.
  providers: [
    OutboxWriter,
    AdminJobRepository,
    GetAdminJobUseCase,
    GetJobUseCase,
    ...ADMIN_JOB_USE_CASES,
    TenantStatsRepository,
    AnalyzeStatisticsJob,
    PurgeAuditLogJob,
    PurgeOutboxJob,
    { provide: JOB_INSPECTOR, useClass: AttachedJobInspector },
  ],
  exports: [
    OutboxWriter,
    AdminJobRepository,
    GetAdminJobUseCase,
    GetJobUseCase,
    ...ADMIN_JOB_USE_CASES,
    JOB_INSPECTOR,
  ],
})
export class JobsModule {}

/**
 * The job runtime of one process, imported once by each composition root: the queue driver
 * (BullMQ with Redis, else in-process), the consumer (workers, and the API when the queue is
 * in-process), the outbox relay, and the registry filled from `@HandlesJob` methods.
 */
@Module({})
export class JobsRuntimeModule {
  static forRoot(options: JobsModuleOptions): DynamicModule {
    const { role } = options;
    return {
      module: JobsRuntimeModule,
      // JobsModule's JOB_INSPECTOR (one instance for every module importing it) gets this queue.
      imports: [DiscoveryModule, JobsModule],
      providers: [
        { provide: JOBS_MODULE_OPTIONS, useValue: options },
        { provide: JobHandlerRegistry, useFactory: () => new JobHandlerRegistry() },
        JobHandlerDiscovery,
        {
          provide: INSTALLATION_ID,
          inject: [TransactionRunner, ServerSecretRepository],
          useFactory: loadInstallationId,
        },
        {
          provide: JobExecutor,
          inject: [JobHandlerRegistry],
          useFactory: (r: JobHandlerRegistry) => new JobExecutor(r),
        },
        {
          provide: JOB_QUEUE,
          inject: [APP_CONFIG, JobExecutor],
          useFactory: (config: AppConfig, executor: JobExecutor) => createQueue(config, executor, role),
        },
        {
          provide: JOB_CONSUMER,
          inject: [APP_CONFIG, JOB_QUEUE, JobExecutor, JobHandlerRegistry, INSTALLATION_ID],
          useFactory: (
            config: AppConfig,
            queue: JobQueue,
            executor: JobExecutor,
            registry: JobHandlerRegistry,
            installationId: string,
          ) => createConsumer(config, queue, executor, registry, role, installationId),
        },
        {
          provide: OutboxRelay,
          inject: [APP_CONFIG, TransactionRunner, JOB_QUEUE, INSTALLATION_ID],
          useFactory: (
            config: AppConfig,
            transactions: TransactionRunner,
            queue: JobQueue,
            installationId: string,
          ) => createRelay(config, transactions, queue, installationId),
        },
        {
          provide: RUNTIME_INSPECTOR,
          inject: [JOB_QUEUE, JOB_INSPECTOR],
          useFactory: (queue: JobQueue, attached: AttachedJobInspector) =>
            attached.attach(createInspector(queue)),
        },
        JobsLifecycle,
      ],
      exports: [JOB_QUEUE, JOB_CONSUMER, JobHandlerRegistry, JobExecutor, OutboxRelay, INSTALLATION_ID],
    };
  }
}
