import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { QuotaError, type Principal } from '@app/tenancy';
import { SessionRepository } from '../adapters/session.repository';
import { projectIdentity, remoteWithoutCredentials } from '@app/kernel';
import type { NewSession, Session } from '../domain/session';
import { SessionError } from '../domain/session.errors';
import { SessionScreen } from './session-screen';

export interface StartedSession extends Session {
  /** false: a session with this id was already the caller's (a repeated start answers it). */
  readonly created: boolean;
}

/**
 * Starts a session. Idempotent on a client-supplied id, so a hook may retry or start before it
 * knows whether an earlier start arrived: the same id of the same user answers the existing
 * session unchanged; an id someone else holds is refused. A new session past the tenant's
 * sessions-per-day quota is refused (429) by the insert itself.
 */
@Injectable()
export class StartSessionUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly sessions: SessionRepository,
    private readonly screen: SessionScreen,
  ) {}

  async execute(principal: Principal, input: NewSession): Promise<StartedSession> {
    const gitRemote = input.gitRemote?.trim() ? remoteWithoutCredentials(input.gitRemote.trim()) : undefined;
    const record = {
      id: input.id ?? null,
      agent: this.screen.text(input.agent),
      project: this.nullable(projectIdentity({ project: input.project, gitRemote })),
      cwd: this.nullable(input.cwd),
      gitRemote: this.nullable(gitRemote),
      gitBranch: this.nullable(input.gitBranch),
      gitCommit: input.gitCommit ?? null,
      startedAt: input.startedAt ?? null,
    };
    const maxPerDay = principal.quotas?.maxSessionsPerDay || undefined;
    return this.tx.inTenant(principal, async (tx) => {
      const inserted = await this.sessions.insert(principal, tx, record, maxPerDay);
      if (inserted) return { ...inserted, created: true };
      const existing = record.id === null ? null : await this.sessions.findOwn(principal, tx, record.id);
      if (existing) return { ...existing, created: false };
      if (maxPerDay !== undefined) {
        const started = await this.sessions.startedToday(principal, tx);
        if (started >= maxPerDay) throw QuotaError.sessionsPerDay(started, maxPerDay);
      }
      throw SessionError.idTaken(record.id ?? '');
    });
  }

  private nullable(text: string | null | undefined): string | null {
    return text === undefined || text === null || text === '' ? null : this.screen.text(text);
  }
}
