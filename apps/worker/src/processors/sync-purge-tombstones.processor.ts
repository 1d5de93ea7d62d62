import { Inject, Injectable, Logger, type OnModuleInit, Optional } from '@nestjs/common';
import {
  JOB_CONSUMER,
  JOB_DEFINITIONS,
  JOB_QUEUE,
  JobHandlerRegistry,
  type JobConsumer,
  type JobHandler,
  type JobQueue,
} from '@app/jobs';
import { SyncPurgeTombstonesUseCase } from '@app/memories';
import { SlotSchedule } from './slot-schedule';

/** One retention run per slot; enqueue attempts are more frequent so a restart does not skip one. */
export const SYNC_PURGE_SLOT_MS = 60 * 60 * 1000;
const ENQUEUE_EVERY_MS = 5 * 60 * 1000;

/** `sync.purge-tombstones`: validate the payload, run the retention use case. */
@Injectable()
export class SyncPurgeTombstonesProcessor implements JobHandler, OnModuleInit {
  private readonly logger = new Logger('SyncPurgeTombstones');

  constructor(
    @Inject(JobHandlerRegistry) private readonly registry: JobHandlerRegistry,
    @Inject(SyncPurgeTombstonesUseCase) private readonly purge: SyncPurgeTombstonesUseCase,
  ) {}

  onModuleInit(): void {
    this.registry.register('sync.purge-tombstones', this);
  }

  async handle(data: unknown): Promise<void> {
    JOB_DEFINITIONS['sync.purge-tombstones'].parse(data);
    const result = await this.purge.execute();
    if (result.memories + result.tombstones > 0) {
      this.logger.log(`purged ${result.memories} deleted memories and ${result.tombstones} tombstones`);
    }
  }
}

/** The retention job, once per slot cluster-wide. */
@Injectable()
export class SyncPurgeTombstonesSchedule extends SlotSchedule {
  constructor(
    @Inject(JOB_QUEUE) queue: JobQueue,
    @Optional() @Inject(JOB_CONSUMER) consumer: JobConsumer | null,
  ) {
    super(queue, consumer, {
      name: 'sync.purge-tombstones',
      idPrefix: 'sync-purge',
      slotMs: SYNC_PURGE_SLOT_MS,
      enqueueEveryMs: ENQUEUE_EVERY_MS,
    });
  }
}
