import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullMqJobQueue } from '@app/jobs/testing';
import { PrivateRedis } from '../../../test/support/private-redis';
import { waitFor } from '../../../test/support/wait-for';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The BullMQ queue's loss watch against a Redis of the test's own, flushed and restarted at will. */
describe('BullMqJobQueue.watchForLoss', () => {
  let redis: PrivateRedis;
  const queues: BullMqJobQueue[] = [];

  /** One process's producer queue, checking its marker every 100 ms. */
  const queue = (prefix: string) => {
    const q = new BullMqJobQueue({ url: redis.url, prefix, lossCheckEveryMs: 100 });
    queues.push(q);
    return q;
  };

  const flushAll = async () => {
    const client = new Redis(redis.url);
    try {
      await client.flushall();
    } finally {
      client.disconnect();
    }
  };

  beforeAll(async () => {
    redis = await PrivateRedis.create();
    await redis.start();
  });

  afterAll(async () => {
    await Promise.all(queues.map((q) => q.close()));
    await redis?.stop();
  });

  it('reports each loss to exactly one of the processes watching: a fresh Redis, a FLUSHALL, a restart', async () => {
    const prefix = `loss-${randomUUID().slice(0, 8)}`;
    const seen: string[] = [];
    for (const name of ['worker-a', 'worker-b', 'worker-c']) {
      queue(prefix).watchForLoss('inst-1', async () => void seen.push(name));
    }
    // A Redis that never held the marker: the first start, or one replaced while no worker ran.
    await waitFor('the first report', () => (seen.length > 0 ? true : undefined));
    await settle(500);
    expect(seen).toHaveLength(1);

    // A FLUSHALL keeps every connection up: only the periodic check can notice it.
    await flushAll();
    await waitFor('the report of the flush', () => (seen.length > 1 ? true : undefined), 5_000);
    await settle(500);
    expect(seen).toHaveLength(2);

    // A restart without persistence: the reconnect finds the marker gone.
    await redis.stop();
    await redis.start();
    await waitFor('the report of the restart', () => (seen.length > 2 ? true : undefined), 10_000);
    await settle(500);
    expect(seen).toHaveLength(3);
  });

  it('reports a loss again while its listener fails, and each installation sees it', async () => {
    const prefix = `retry-${randomUUID().slice(0, 8)}`;
    let failures = 2;
    let handled = 0;
    queue(prefix).watchForLoss('inst-1', async () => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('could not queue the repair');
      }
      handled += 1;
    });
    let otherInstallation = 0;
    queue(prefix).watchForLoss('inst-2', async () => void (otherInstallation += 1));

    await waitFor('the loss to be handled after two failures', () => (handled > 0 ? true : undefined));
    await settle(500);
    expect({ failures, handled, otherInstallation }).toEqual({
      failures: 0,
      handled: 1,
      otherInstallation: 1,
    });
  });

  it('stops checking when the watch is stopped', async () => {
    const prefix = `stop-${randomUUID().slice(0, 8)}`;
    let reports = 0;
    const stop = queue(prefix).watchForLoss('inst-1', async () => void (reports += 1));
    await waitFor('the first report', () => (reports > 0 ? true : undefined));
    stop();
    await flushAll();
    await settle(800);
    expect(reports).toBe(1);
  });
});
