import { Injectable } from '@nestjs/common';
import { HandlesJob, type JobPayload } from '@app/jobs';
import { TransactionRunner, type TenantScope } from '@app/persistence';
import { SessionEventRepository } from '../adapters/session-event.repository';

/**
 * `sessions.process`: the background half of event capture, run as the session's user. It marks
 * the session's new events processed (the counts `GET /api/sessions/{id}` shows); candidate
 * memories come from `sessions.extract` when the session ends. One job per session at a time: the
 * batch that queued it set `processing_queued`, later batches leave it to this job, which clears
 * the flag under the session's row lock before marking, so it sees every such batch. Idempotent:
 * it handles whatever is still unprocessed, so a repeated delivery does nothing twice.
 */
@Injectable()
export class ProcessSessionEventsUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly events: SessionEventRepository,
  ) {}

  @HandlesJob('sessions.process')
  async onJob(payload: JobPayload<'sessions.process'>): Promise<void> {
    await this.execute({ tenantId: payload.tenantId, userId: payload.userId }, payload.sessionId);
  }

  /** Answers how many events it processed. */
  async execute(scope: TenantScope, sessionId: string): Promise<number> {
    return this.tx.inTenant(scope, async (tx) => {
      await this.events.finishProcessing(scope, tx, sessionId);
      return this.events.markProcessed(scope, tx, sessionId);
    });
  }
}
