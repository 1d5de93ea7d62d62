import { Inject, Injectable, Logger, type OnModuleInit, Optional } from '@nestjs/common';
import {
  isFinalAttempt,
  JOB_CONSUMER,
  JOB_DEFINITIONS,
  JOB_QUEUE,
  JobHandlerRegistry,
  type JobConsumer,
  type JobContext,
  type JobHandler,
  type JobQueue,
} from '@app/jobs';
import { RunSecretMigrationUseCase, SweepSecretsUseCase } from '@app/memories';
import { SlotSchedule } from './slot-schedule';

/** `secrets.migrate`: validate the payload, run the (resumable) migration of one tenant. */
@Injectable()
export class SecretsMigrateProcessor implements JobHandler, OnModuleInit {
  constructor(
    @Inject(JobHandlerRegistry) private readonly registry: JobHandlerRegistry,
    @Inject(RunSecretMigrationUseCase) private readonly migration: RunSecretMigrationUseCase,
  ) {}

  onModuleInit(): void {
    this.registry.register('secrets.migrate', this);
  }

  async handle(data: unknown, context: JobContext): Promise<void> {
    const payload = JOB_DEFINITIONS['secrets.migrate'].parse(data);
    await this.migration.execute(payload, { finalAttempt: isFinalAttempt(context) });
  }
}

/** `secrets.cleanup`: delete Vault secrets no memory points at. */
@Injectable()
export class SecretsCleanupProcessor implements JobHandler, OnModuleInit {
  private readonly logger = new Logger('SecretCleanup');

  constructor(
    @Inject(JobHandlerRegistry) private readonly registry: JobHandlerRegistry,
    @Inject(SweepSecretsUseCase) private readonly sweep: SweepSecretsUseCase,
  ) {}

  onModuleInit(): void {
    this.registry.register('secrets.cleanup', this);
  }

  async handle(data: unknown): Promise<void> {
    JOB_DEFINITIONS['secrets.cleanup'].parse(data);
    const { deleted, kept } = await this.sweep.execute();
    if (deleted + kept > 0) this.logger.log(`cleanup: ${deleted} secrets deleted, ${kept} still in use`);
  }
}

/** Every five minutes, cluster-wide. */
@Injectable()
export class SecretsCleanupSchedule extends SlotSchedule {
  constructor(
    @Inject(JOB_QUEUE) queue: JobQueue,
    @Optional() @Inject(JOB_CONSUMER) consumer: JobConsumer | null,
  ) {
    super(queue, consumer, {
      name: 'secrets.cleanup',
      idPrefix: 'secrets-cleanup',
      slotMs: 5 * 60 * 1000,
      enqueueEveryMs: 60 * 1000,
    });
  }
}
