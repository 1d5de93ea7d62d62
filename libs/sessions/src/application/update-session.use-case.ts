import { Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, hasScope, type Principal } from '@app/tenancy';
import { SessionRepository } from '../adapters/session.repository';
import type { Session, SessionPatch } from '../domain/session';
import { SessionError, SessionErrorCode } from '../domain/session.errors';
import { SessionScreen } from './session-screen';

/**
 * Ends a session, changes its status or records its summary (the caller's own sessions only; a
 * teammate's session that the caller may read answers 403, any other 404).
 * Ending it (status `ended` or `abandoned`, or an end time) records a `sessions.extract` job in the
 * same transaction, which turns its events into memories, when the key may write memories. Ending
 * it again extracts only the events that arrived since. Ending it is audited (`session.end`, the
 * `session.ended` webhook event).
 */
@Injectable()
export class UpdateSessionUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly sessions: SessionRepository,
    private readonly screen: SessionScreen,
    private readonly outbox: OutboxWriter,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: string, patch: SessionPatch): Promise<Session> {
    if (patch.status === undefined && patch.summary === undefined && patch.endedAt === undefined) {
      throw new SessionError(
        SessionErrorCode.NoFieldsToUpdate,
        'Pass at least one of status, summary or ended_at',
      );
    }
    const change = {
      // An end time alone ends the session.
      status: patch.status ?? (patch.endedAt !== undefined ? ('ended' as const) : null),
      summary: patch.summary === undefined ? null : this.screen.text(patch.summary),
      endedAt: patch.endedAt ?? null,
    };
    return this.tx.inTenant(principal, async (tx) => {
      const updated = await this.sessions.update(principal, tx, id, change);
      if (!updated) {
        throw (await this.sessions.findReadable(principal, tx, id))
          ? SessionError.notWritable(id)
          : SessionError.notFound(id);
      }
      const ends = change.status !== null && change.status !== 'active';
      if (ends) {
        await this.audit.record(principal, tx, {
          action: 'session.end',
          targetType: 'session',
          targetId: updated.id,
          details: { status: change.status },
        });
      }
      if (ends && hasScope(principal, 'memories:write')) {
        await this.outbox.enqueue(principal, tx, {
          name: 'sessions.extract',
          payload: {
            tenantId: principal.tenantId,
            userId: principal.userId,
            sessionId: updated.id,
            keyId: principal.keyId,
            defaultVisibility: principal.defaultVisibility,
            requestId: principal.requestId,
          },
          requestId: principal.requestId,
        });
      }
      return updated;
    });
  }
}
