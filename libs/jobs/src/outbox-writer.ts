import { type TenantScope, type Tx } from '@app/persistence';
import { JOB_DEFINITIONS, type JobName, type JobPayload } from './job-definitions';

/**
 * Records background work in the same transaction as the write that needs it; the outbox relay
 * later moves the row to the queue, so a committed write never loses its job (even if Redis is down)
 * and a rolled-back write never runs one.
 */
export class OutboxWriter {
  async enqueue<N extends JobName>(
    scope: TenantScope,
    tx: Tx,
    job: { name: N; payload: JobPayload<N>; requestId?: string },
  ): Promise<void> {
    const payload = JOB_DEFINITIONS[job.name].parse(job.payload);
    await tx.query(`INSERT INTO outbox (tenant_id, job_name, payload, request_id) VALUES ($1, $2, $3, $4)`, [
      scope.tenantId,
      job.name,
      JSON.stringify(payload),
      job.requestId ?? null,
    ]);
  }
}
