import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { SessionRepository } from '../adapters/session.repository';
import { projectIdentity } from '@app/kernel';
import { DEFAULT_SESSION_LIST_LIMIT, MAX_SESSION_LIST_LIMIT, type Session } from '../domain/session';

export interface ListSessionsInput {
  /** A project identity, or a git remote URL (normalised the same way as at start). */
  readonly project?: string;
  readonly since?: string;
  readonly limit?: number;
  /** Every session the caller may read (teammates' when the tenant allows it), not only their own. */
  readonly team?: boolean;
}

/** The caller's own sessions, or every session they may read (`team`), newest first. */
@Injectable()
export class ListSessionsUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly sessions: SessionRepository,
  ) {}

  async execute(principal: Principal, input: ListSessionsInput = {}): Promise<Session[]> {
    const query = {
      project: projectIdentity({ project: input.project }),
      since: input.since ?? null,
      limit: Math.min(input.limit ?? DEFAULT_SESSION_LIST_LIMIT, MAX_SESSION_LIST_LIMIT),
      team: input.team ?? false,
    };
    return this.tx.inTenant(principal, (tx) => this.sessions.list(principal, tx, query), READ_ONLY);
  }
}
