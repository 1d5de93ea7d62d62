import { describe, expect, it } from 'vitest';
import type { DiscoveredSchedule } from './job-handler.discovery';
import type { JobQueue, QueuedJob } from './job-queue.port';
import { SlotScheduler } from './slot-scheduler';

/** Records adds; `lose()` plays the queue's loss watch reporting a wiped store. */
class LosingQueue implements JobQueue {
  readonly driver = 'bullmq' as const;
  readonly added: QueuedJob[] = [];
  readonly watchers: string[] = [];
  failAdds = false;
  private listener: (() => Promise<void>) | undefined;

  async add(jobs: readonly QueuedJob[]): Promise<void> {
    if (this.failAdds) throw new Error('queue unavailable');
    this.added.push(...jobs);
  }
  async waiting(): Promise<number> {
    return 0;
  }
  async ping(): Promise<void> {}
  onAvailable(): void {}
  watchForLoss(watcher: string, listener: () => Promise<void>): () => void {
    this.watchers.push(watcher);
    this.listener = listener;
    return () => (this.listener = undefined);
  }
  async close(): Promise<void> {}
  async lose(): Promise<void> {
    if (!this.listener) throw new Error('nobody watches');
    await this.listener();
  }
}

const HOUR = 60 * 60_000;
const reconcile: DiscoveredSchedule = {
  name: 'embeddings.reconcile',
  slotMs: HOUR,
  enqueueEveryMs: HOUR,
  idPrefix: 'index-reconcile',
  runAfterQueueLoss: true,
};
const expire: DiscoveredSchedule = {
  name: 'memories.expire',
  slotMs: HOUR,
  enqueueEveryMs: HOUR,
  idPrefix: 'memories-expire',
};

describe('SlotScheduler after a queue loss', () => {
  it('runs the schedules that repair a loss at once, marked queueLost, under an id of their own', async () => {
    const queue = new LosingQueue();
    const scheduler = new SlotScheduler(queue, 'inst0123');
    scheduler.start([reconcile, expire]);
    try {
      expect(queue.watchers).toEqual(['inst0123']);
      await new Promise((resolve) => setImmediate(resolve));
      const slotJobs = queue.added.splice(0);
      expect(slotJobs.map((j) => j.name).sort()).toEqual(['embeddings.reconcile', 'memories.expire']);

      await queue.lose();
      expect(queue.added).toHaveLength(1);
      const [run] = queue.added;
      expect(run.name).toBe('embeddings.reconcile');
      expect(run.payload).toMatchObject({ queueLost: true });
      expect(run.jobId).toMatch(/^s-inst0123-index-reconcile-lost-\d+$/);
      expect(slotJobs.map((j) => j.jobId)).not.toContain(run.jobId);
    } finally {
      scheduler.stop();
    }
  });

  it('fails the loss report when the run cannot be queued, so the watch reports it again', async () => {
    const queue = new LosingQueue();
    const scheduler = new SlotScheduler(queue, 'inst0123');
    scheduler.start([reconcile]);
    try {
      queue.failAdds = true;
      await expect(queue.lose()).rejects.toThrow('queue unavailable');
      queue.failAdds = false;
      await queue.lose();
      expect(queue.added.filter((j) => (j.payload as { queueLost?: boolean }).queueLost)).toHaveLength(1);
    } finally {
      scheduler.stop();
    }
  });

  it('watches only when a schedule repairs losses, and stops watching when stopped', async () => {
    const plain = new LosingQueue();
    const quiet = new SlotScheduler(plain, 'inst0123');
    quiet.start([expire]);
    quiet.stop();
    expect(plain.watchers).toEqual([]);

    const queue = new LosingQueue();
    const scheduler = new SlotScheduler(queue, 'inst0123');
    scheduler.start([reconcile]);
    scheduler.stop();
    await expect(queue.lose()).rejects.toThrow('nobody watches');
  });
});
