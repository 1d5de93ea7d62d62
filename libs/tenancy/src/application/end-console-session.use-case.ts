import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { ConsoleSessionRepository } from '../adapters/console-session.repository';
import { isSessionTokenShape, sessionTokenHash } from '../domain/console-sign-in';

/** Signs a console session out: its row is deleted, so the cookie opens nothing on any replica. */
@Injectable()
export class EndConsoleSessionUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    private readonly sessions: ConsoleSessionRepository,
  ) {}

  /** Whether a session was ended (false: it had ended already). */
  async execute(sessionToken: string): Promise<boolean> {
    if (!isSessionTokenShape(sessionToken)) return false;
    return this.tx.asSystem((tx) => this.sessions.delete(tx, sessionTokenHash(sessionToken)));
  }
}
