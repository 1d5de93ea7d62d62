import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { SessionEventRepository } from '../adapters/session-event.repository';
import { SessionRepository } from '../adapters/session.repository';
import type { SessionDetail } from '../domain/session';
import { SessionError } from '../domain/session.errors';

/**
 * One session with its event counts: the caller's own, any of the tenant's for an admin, or a
 * teammate's when the tenant turned team session visibility on.
 */
@Injectable()
export class GetSessionUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly sessions: SessionRepository,
    private readonly events: SessionEventRepository,
  ) {}

  async execute(principal: Principal, id: string): Promise<SessionDetail> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const session = await this.sessions.findReadable(principal, tx, id);
        if (!session) throw SessionError.notFound(id);
        return { ...session, eventCounts: await this.events.counts(principal, tx, id) };
      },
      READ_ONLY,
    );
  }
}
