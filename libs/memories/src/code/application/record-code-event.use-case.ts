import { Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { CodeEventRepository } from '../adapters/code-event.repository';
import type { CodeEvent, NewCodeEvent } from '../domain/code-event';

/**
 * Records what changed in a repository (`POST /api/code-events`: a CI bot's push, or the hooks'
 * working tree at the end of a session) with its `code-events.apply` job in one transaction. The
 * worker then marks the tenant's anchors on those paths stale, orphaned or moved; nothing about
 * anchors happens in the request.
 */
@Injectable()
export class RecordCodeEventUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly events: CodeEventRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  execute(principal: Principal, event: NewCodeEvent): Promise<CodeEvent> {
    // The event and its job in one statement that carries the commit: one round trip.
    return this.tx.inTenant(principal, (tx) => {
      const job = this.outbox.enqueueStatement(
        principal,
        tx,
        {
          name: 'code-events.apply',
          // The id is the new row's (`NEW_ROW`); 1 holds its place through the payload's schema.
          payload: { tenantId: principal.tenantId, eventId: 1, requestId: principal.requestId },
          requestId: principal.requestId,
        },
        'eventId',
      );
      return this.events.insert(principal, tx, event, [job], { last: true });
    });
  }
}
