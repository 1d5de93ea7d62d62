import { Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { SessionEventRepository } from '../adapters/session-event.repository';
import { SessionRepository } from '../adapters/session.repository';
import { assertEventBatchSize } from '../domain/event-size';
import type { NewSessionEvent, RecordedEvents } from '../domain/session';
import { SessionError } from '../domain/session.errors';
import { SessionScreen } from './session-screen';

/**
 * Captures a batch of events into the caller's own session and answers at once: one short
 * transaction with one multi-row INSERT and one outbox row; the `sessions.process` job does the
 * rest in the background. Payloads are size-checked as sent, then redacted before anything is
 * written (the originals are never stored). Events whose client id the session already has are
 * counted as duplicates and not stored again; a batch of only duplicates queues no job.
 */
@Injectable()
export class RecordSessionEventsUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly events: SessionEventRepository,
    private readonly sessions: SessionRepository,
    private readonly outbox: OutboxWriter,
    private readonly screen: SessionScreen,
  ) {}

  async execute(
    principal: Principal,
    sessionId: string,
    batch: readonly NewSessionEvent[],
  ): Promise<RecordedEvents> {
    assertEventBatchSize(batch);
    const screened = batch.map((event) => ({ ...event, payload: this.screen.payload(event.payload) }));
    return this.tx.inTenant(principal, async (tx) => {
      const { found, inserted, queueJob } = await this.events.insertBatch(principal, tx, sessionId, screened);
      if (!found) {
        // Not the caller's: a teammate's session they may read is 403, anything else 404.
        throw (await this.sessions.findReadable(principal, tx, sessionId))
          ? SessionError.notWritable(sessionId)
          : SessionError.notFound(sessionId);
      }
      const recorded = { accepted: inserted, duplicates: batch.length - inserted };
      // A job already queued for the session handles this batch too (it clears the flag under lock).
      if (!queueJob) return recorded;
      await this.outbox.enqueue(principal, tx, {
        name: 'sessions.process',
        payload: {
          tenantId: principal.tenantId,
          userId: principal.userId,
          sessionId,
          requestId: principal.requestId,
        },
        requestId: principal.requestId,
      });
      return recorded;
    });
  }
}
