import { Injectable } from '@nestjs/common';
import { MemoryError, MemoryLookup } from '@app/memories';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { SessionEventRepository } from '../adapters/session-event.repository';
import { SessionRepository } from '../adapters/session.repository';
import { DEFAULT_TIMELINE_WINDOW, MAX_TIMELINE_WINDOW, type SessionEvent } from '../domain/session';
import { SessionError } from '../domain/session.errors';

export interface TimelineInput {
  /** A memory the caller can see: the events around the time it was created. */
  readonly around?: number;
  /** Events on each side of that moment; without `around`, how many of the newest. */
  readonly window?: number;
}

export interface SessionTimeline {
  readonly sessionId: string;
  /** The moment the events surround, or null for the newest events. */
  readonly around: string | null;
  /** Oldest first. */
  readonly events: SessionEvent[];
}

/**
 * What happened in a session around the time a memory was made (or most recently), for any session
 * the caller may read (own, admin, or a teammate's when the tenant allows it).
 */
@Injectable()
export class GetSessionTimelineUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly sessions: SessionRepository,
    private readonly events: SessionEventRepository,
    private readonly memories: MemoryLookup,
  ) {}

  async execute(
    principal: Principal,
    sessionId: string,
    input: TimelineInput = {},
  ): Promise<SessionTimeline> {
    const window = Math.min(input.window ?? DEFAULT_TIMELINE_WINDOW, MAX_TIMELINE_WINDOW);
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const session = await this.sessions.findReadable(principal, tx, sessionId);
        if (!session) throw SessionError.notFound(sessionId);
        let around: string | null = null;
        if (input.around !== undefined) {
          const [memory] = await this.memories.findVisible(principal, tx, [input.around]);
          if (!memory) throw MemoryError.notFound(input.around);
          around = memory.createdAt;
        }
        const events = await this.events.timeline(principal, tx, { sessionId, around, window });
        return { sessionId, around, events };
      },
      READ_ONLY,
    );
  }
}
