import { Injectable } from '@nestjs/common';
import { HandlesJob, type JobPayload } from '@app/jobs';
import { TransactionRunner, type TenantScope } from '@app/persistence';
import { SessionEventRepository } from '../adapters/session-event.repository';

/**
 * `sessions.process`: the background half of event capture, run as the session's user. For now it
 * marks the session's new events processed (the counts `GET /api/sessions/{id}` shows); turning
 * them into candidate memories comes here later. Idempotent: it handles whatever is still
 * unprocessed, so a repeated or merged delivery does nothing twice.
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
    return this.tx.inTenant(scope, (tx) => this.events.markProcessed(scope, tx, sessionId));
  }
}
