import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { JobConsumer, JobName, JobQueue } from '@app/jobs';

/** Jobs whose payload is just the schedule slot. */
type SlotJobName = Extract<JobName, 'sync.purge-tombstones' | 'secrets.cleanup'>;

/**
 * Puts a periodic job on the queue once per slot from every consuming process (workers, and the
 * embedded API). The job id is derived from the slot, so BullMQ (and the in-process driver)
 * ignore the duplicates other replicas add: one run per slot cluster-wide, no leader election and
 * no driver-specific scheduler API. Enqueue attempts are more frequent than slots, so a restart
 * does not skip one.
 */
export abstract class SlotSchedule implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;

  protected constructor(
    private readonly queue: JobQueue,
    private readonly consumer: JobConsumer | null,
    private readonly job: { name: SlotJobName; idPrefix: string; slotMs: number; enqueueEveryMs: number },
  ) {
    this.logger = new Logger(job.name);
  }

  onApplicationBootstrap(): void {
    if (!this.consumer) return; // a producing-only API leaves scheduling to the workers
    void this.enqueue();
    this.timer = setInterval(() => void this.enqueue(), this.job.enqueueEveryMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async enqueue(): Promise<void> {
    const { name, idPrefix, slotMs } = this.job;
    const slot = new Date(Math.floor(Date.now() / slotMs) * slotMs).toISOString();
    try {
      await this.queue.add([
        { name, jobId: `${idPrefix}-${slot.replace(/[^0-9]/g, '')}`, payload: { slot } },
      ]);
    } catch (error) {
      this.logger.warn(`could not enqueue ${name}: ${String(error)}`);
    }
  }
}
