import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JobExecutor, type JobRunEvent } from '../job-executor';
import { JobHandlerRegistry, type JobHandler } from '../job-handler.registry';
import type { JobPolicy } from '../job-policies';
import type { JobContext, QueuedJob } from '../job-queue.port';
import { UnrecoverableJobError } from '../jobs.errors';
import { InProcessJobQueue } from './in-process.driver';

const policy: JobPolicy = { attempts: 3, backoffMs: 5, keepCompletedSeconds: 60, keepFailedSeconds: 60 };

const job = (id: string): QueuedJob => ({
  name: 'memory.index',
  jobId: id,
  payload: {
    tenantId: '00000000-0000-4000-8000-000000000001',
    userId: '00000000-0000-4000-8000-000000000002',
    memoryId: id.replace(/\D/g, '') || '1',
    contentHash: 'a'.repeat(64),
  },
});

function setup(handle: (data: unknown, context: JobContext) => Promise<void>, concurrency = 2) {
  const registry = new JobHandlerRegistry();
  const handler: JobHandler = { handle };
  registry.register('memory.index', handler);
  const executor = new JobExecutor(registry);
  const events: JobRunEvent[] = [];
  executor.subscribe((e) => events.push(e));
  let now = 1_000_000;
  const queue = new InProcessJobQueue(executor, { concurrency, policy: () => policy, now: () => now });
  return { queue, events, advance: (ms: number) => (now += ms) };
}

describe('InProcessJobQueue', () => {
  it('retries a failing job with backoff until it succeeds, passing the attempt number', async () => {
    const seen: JobContext[] = [];
    const { queue, events } = setup(async (_data, context) => {
      seen.push(context);
      if (context.attempt < 3) throw new Error(`flaky ${context.attempt}`);
    });
    await queue.start();
    await queue.add([job('outbox-1')]);
    await queue.whenIdle();
    expect(seen.map((c) => [c.attempt, c.maxAttempts])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(events.map((e) => [e.outcome, e.final])).toEqual([
      ['failed', false],
      ['failed', false],
      ['completed', true],
    ]);
    await queue.close(100);
  });

  it('gives up after the last attempt', async () => {
    let runs = 0;
    const { queue, events } = setup(async () => {
      runs += 1;
      throw new Error('always');
    });
    await queue.start();
    await queue.add([job('outbox-2')]);
    await queue.whenIdle();
    expect(runs).toBe(3);
    expect(events.at(-1)).toMatchObject({ outcome: 'failed', final: true });
    await queue.close(100);
  });

  it('does not retry validation errors or unrecoverable errors', async () => {
    let runs = 0;
    const { queue, events } = setup(async (data) => {
      runs += 1;
      if (runs === 1) z.object({ missing: z.string() }).parse(data);
      throw new UnrecoverableJobError('memory belongs to nobody');
    });
    await queue.start();
    await queue.add([job('outbox-3'), job('outbox-4')]);
    await queue.whenIdle();
    expect(runs).toBe(2);
    expect(events.map((e) => e.final)).toEqual([true, true]);
    await queue.close(100);
  });

  it('runs a job id once while it is known, and again after its retention has passed', async () => {
    let runs = 0;
    const { queue, advance } = setup(async () => {
      runs += 1;
    });
    await queue.start();
    await queue.add([job('outbox-5'), job('outbox-5')]);
    await queue.add([job('outbox-5')]);
    await queue.whenIdle();
    await queue.add([job('outbox-5')]);
    await queue.whenIdle();
    expect(runs).toBe(1);
    advance(61_000);
    await queue.add([job('outbox-5')]);
    await queue.whenIdle();
    expect(runs).toBe(2);
    await queue.close(100);
  });

  it('holds jobs added before start and never runs more than `concurrency` at once', async () => {
    let running = 0;
    let peak = 0;
    const { queue } = setup(async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running -= 1;
    }, 2);
    await queue.add(Array.from({ length: 6 }, (_, i) => job(`outbox-${10 + i}`)));
    await new Promise((r) => setTimeout(r, 20));
    expect(peak).toBe(0);
    await queue.start();
    await queue.whenIdle();
    expect(peak).toBe(2);
    await queue.close(100);
  });

  it('lets running and queued jobs finish on close, then refuses new ones', async () => {
    const finished: string[] = [];
    const { queue } = setup(async (_d, context) => {
      await new Promise((r) => setTimeout(r, 10));
      finished.push(context.jobId);
    }, 1);
    await queue.start();
    await queue.add([job('outbox-20'), job('outbox-21')]);
    await queue.close(1_000);
    expect(finished).toEqual(['outbox-20', 'outbox-21']);
    await expect(queue.add([job('outbox-22')])).rejects.toThrow(/closed/);
  });

  it('runs jobs with no registered handler zero times and fails them for good', async () => {
    const registry = new JobHandlerRegistry();
    const executor = new JobExecutor(registry);
    const events: JobRunEvent[] = [];
    executor.subscribe((e) => events.push(e));
    const queue = new InProcessJobQueue(executor, { concurrency: 1, policy: () => policy });
    await queue.start();
    await queue.add([job('outbox-30')]);
    await queue.whenIdle();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ outcome: 'failed', final: true });
    await queue.close(0);
  });
});
