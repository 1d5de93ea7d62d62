import type { INestApplicationContext } from '@nestjs/common';
import { JOB_CONSUMER, type JobConsumer } from './job-queue.port';
import { OutboxRelay } from './outbox/outbox-relay';

/**
 * Stops the outbox relay and lets running jobs finish (at most `graceMs`; then BullMQ hands them
 * to another worker once their lock lapses). Call it before `app.close()`: Nest runs the destroy
 * hooks of the modules a job uses (the embedder, for one) before the global jobs module's own
 * drain, so a job still running at that point would lose them mid-flight. Idempotent.
 */
export async function drainJobs(app: INestApplicationContext, graceMs: number): Promise<void> {
  await app.get(OutboxRelay).stop();
  const consumer = app.get<JobConsumer | null>(JOB_CONSUMER);
  await consumer?.close(graceMs);
}
