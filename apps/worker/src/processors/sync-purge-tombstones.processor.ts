import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
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

/**
 * Puts the retention job on the queue once per slot from every consuming process (workers, and
 * the embedded API). The job id is derived from the slot, so BullMQ (and the in-process driver)
 * ignore the duplicates other replicas add: one run per slot cluster-wide, no leader election and
 * no driver-specific scheduler API.
 */
@Injectable()
export class SyncPurgeTombstonesSchedule implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SyncPurgeTombstones');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Optional() @Inject(JOB_CONSUMER) private readonly consumer: JobConsumer | null,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.consumer) return; // a producing-only API leaves scheduling to the workers
    void this.enqueue();
    this.timer = setInterval(() => void this.enqueue(), ENQUEUE_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async enqueue(): Promise<void> {
    const slot = new Date(Math.floor(Date.now() / SYNC_PURGE_SLOT_MS) * SYNC_PURGE_SLOT_MS).toISOString();
    try {
      await this.queue.add([
        {
          name: 'sync.purge-tombstones',
          jobId: `sync-purge-${slot.replace(/[^0-9]/g, '')}`,
          payload: { slot },
        },
      ]);
    } catch (error) {
      this.logger.warn(`could not enqueue tombstone retention: ${String(error)}`);
    }
  }
}
