import type { Job, Queue } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { BullMqJobInspector } from './bullmq-inspector';

type JobFields = Pick<Job, 'attemptsMade' | 'failedReason' | 'processedOn' | 'finishedOn'>;

/** A job as BullMQ reads it: its fields as they were when read, and its state as it is when asked. */
function jobRead(fields: JobFields, state: string): Job {
  return {
    id: 'job-1',
    name: 'sessions.process',
    data: { tenantId: 'tenant-1' },
    opts: { attempts: 1 },
    timestamp: 1_000,
    ...fields,
    getState: async () => state,
  } as unknown as Job;
}

const waitingFields: JobFields = {
  attemptsMade: 0,
  failedReason: '',
  processedOn: undefined,
  finishedOn: undefined,
};
const failedFields: JobFields = {
  attemptsMade: 1,
  failedReason: 'extractor crashed',
  processedOn: 2_000,
  finishedOn: 3_000,
};

describe('BullMqJobInspector', () => {
  it('shows a job that failed between the read of its fields and of its state with its error and attempts', async () => {
    const getJob = vi
      .fn()
      .mockResolvedValueOnce(jobRead(waitingFields, 'failed'))
      .mockResolvedValueOnce(jobRead(failedFields, 'failed'));
    const inspector = new BullMqJobInspector(() => ({ getJob }) as unknown as Queue);

    const job = await inspector.find('job-1', ['sessions.process']);

    expect(job).toMatchObject({
      state: 'failed',
      attemptsMade: 1,
      error: 'extractor crashed',
      startedAt: 2_000,
      finishedAt: 3_000,
    });
    expect(getJob).toHaveBeenCalledTimes(2);
  });

  it('reads a job once when its fields and its state agree', async () => {
    const getJob = vi.fn().mockResolvedValue(jobRead(failedFields, 'failed'));
    const inspector = new BullMqJobInspector(() => ({ getJob }) as unknown as Queue);

    expect(await inspector.find('job-1', ['sessions.process'])).toMatchObject({
      state: 'failed',
      error: 'extractor crashed',
    });
    expect(getJob).toHaveBeenCalledTimes(1);
  });
});
