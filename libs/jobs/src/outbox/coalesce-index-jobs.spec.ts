import { describe, expect, it } from 'vitest';
import { MEMORY_INDEX_BATCH_MAX, type JobPayload } from '../job-definitions';
import { outboxJobId, type QueuedJob } from '../job-queue.port';
import { coalesceIndexJobs, type RelayedJob } from './coalesce-index-jobs';

const TENANT = '00000000-0000-4000-8000-000000000001';
const USER = '00000000-0000-4000-8000-000000000002';
const INSTALLATION = '0123456789ab';

const row = (id: number) => ({
  id: String(id),
  tenantId: TENANT,
  jobName: 'memory.index',
  payload: {},
  requestId: null,
  attempts: 0,
  createdUs: `${1_000 + id}`,
});

const index = (rowId: number, memoryId: number, hash = 'ab'): RelayedJob => ({
  row: row(rowId),
  job: {
    name: 'memory.index',
    jobId: outboxJobId(INSTALLATION, row(rowId)),
    payload: { tenantId: TENANT, userId: USER, memoryId: String(memoryId), contentHash: hash.repeat(32) },
    requestId: `req-${rowId}`,
  },
});

const memoriesOf = (job: QueuedJob) => (job.payload as JobPayload<'memory.index-batch'>).memories;

describe('coalesceIndexJobs', () => {
  it('folds the index rows into one batch named after its first and last row; other jobs pass through', () => {
    const other: RelayedJob = {
      row: { ...row(2), jobName: 'sessions.process' },
      job: {
        name: 'sessions.process',
        jobId: outboxJobId(INSTALLATION, row(2)),
        payload: { tenantId: TENANT, userId: USER, sessionId: '00000000-0000-4000-8000-000000000003' },
      },
    };
    const jobs = coalesceIndexJobs(INSTALLATION, [index(1, 10), other, index(3, 11), index(4, 10, 'cd')]);
    expect(jobs.map((j) => j.name)).toEqual(['sessions.process', 'memory.index-batch']);
    const batch = jobs[1];
    expect(batch.jobId).toBe(`${outboxJobId(INSTALLATION, row(1))}-4`);
    // A memory queued twice appears once, with its latest request, after the ones queued since.
    expect(memoriesOf(batch)).toEqual([
      { tenantId: TENANT, userId: USER, memoryId: '11', contentHash: 'ab'.repeat(32) },
      { tenantId: TENANT, userId: USER, memoryId: '10', contentHash: 'cd'.repeat(32) },
    ]);
  });

  it('splits a pass larger than MEMORY_INDEX_BATCH_MAX into several batches, in row order', () => {
    const count = MEMORY_INDEX_BATCH_MAX + 3;
    const jobs = coalesceIndexJobs(
      INSTALLATION,
      Array.from({ length: count }, (_, i) => index(i + 1, i + 1)),
    );
    expect(jobs.map((j) => memoriesOf(j).length)).toEqual([MEMORY_INDEX_BATCH_MAX, 3]);
    expect(memoriesOf(jobs[1])[0].memoryId).toBe(String(MEMORY_INDEX_BATCH_MAX + 1));
  });
});
