import { Logger } from '@nestjs/common';
import { slotJobId, type JobQueue } from './job-queue.port';
import type { DiscoveredSchedule } from './job-handler.discovery';

/**
 * Puts each scheduled job on the queue once per slot from every consuming process (workers, and
 * the embedded API). The job id is derived from the slot, so BullMQ (and the in-process driver)
 * ignore the duplicates other replicas add: one run per slot cluster-wide, no leader election and
 * no driver-specific scheduler API. Enqueue attempts are more frequent than slots, so a restart
 * does not skip one.
 *
 * Schedules marked `runAfterQueueLoss` also run at once when the queue lost its jobs. The queue's
 * loss watch reports each loss to one watcher of this installation, so that run is also one
 * cluster-wide, again without a leader.
 */
export class SlotScheduler {
  private readonly logger = new Logger('SlotScheduler');
  private readonly timers: NodeJS.Timeout[] = [];
  private stopWatching: (() => void) | undefined;

  constructor(
    private readonly queue: JobQueue,
    private readonly installationId: string,
  ) {}

  start(schedules: readonly DiscoveredSchedule[]): void {
    for (const schedule of schedules) {
      void this.enqueue(schedule);
      const timer = setInterval(() => void this.enqueue(schedule), schedule.enqueueEveryMs);
      timer.unref();
      this.timers.push(timer);
    }
    const repairs = schedules.filter((s) => s.runAfterQueueLoss);
    if (repairs.length > 0) {
      this.stopWatching = this.queue.watchForLoss(this.installationId, () => this.runAfterLoss(repairs));
    }
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.stopWatching?.();
    this.stopWatching = undefined;
  }

  private async enqueue(schedule: DiscoveredSchedule): Promise<void> {
    const slot = new Date(Math.floor(Date.now() / schedule.slotMs) * schedule.slotMs).toISOString();
    try {
      await this.queue.add([
        {
          name: schedule.name,
          jobId: slotJobId(this.installationId, schedule.idPrefix, slot),
          // Only slot-payload jobs are scheduled; the registry parses the payload on the way in.
          payload: { slot } as never,
        },
      ]);
    } catch (error) {
      this.logger.warn(`could not enqueue ${schedule.name}: ${String(error)}`);
    }
  }

  /** Throws when the add fails, so the loss watch reports the loss again at its next check. */
  private async runAfterLoss(schedules: readonly DiscoveredSchedule[]): Promise<void> {
    const at = new Date().toISOString();
    this.logger.warn(
      `the job queue lost its jobs (Redis flushed, or restarted or failed over without its data); ` +
        `running ${schedules.map((s) => s.name).join(', ')} now`,
    );
    await this.queue.add(
      schedules.map((schedule) => ({
        name: schedule.name,
        jobId: slotJobId(this.installationId, `${schedule.idPrefix}-lost`, at),
        payload: { slot: at, queueLost: true } as never,
      })),
    );
  }
}
