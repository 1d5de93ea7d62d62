import { DomainError } from '@app/kernel';

/**
 * Postgres could not be reached, or a statement got no answer at all (a dropped network path, a
 * server that stopped answering): the request answers 503 with Retry-After instead of hanging on a
 * socket that may never speak again. Whether a COMMIT in flight took effect cannot be known.
 */
export class DatabaseUnavailableError extends DomainError<'database_unavailable'> {
  constructor(reason: string, cause?: unknown) {
    super('unavailable', 'database_unavailable', `The database is unreachable (${reason}); try again.`, {
      cause,
      retryAfterSeconds: 5,
    });
  }
}
