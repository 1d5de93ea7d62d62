import { DomainError, networkFailureReason } from '@app/kernel';

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

/**
 * SQLSTATEs of a server that is going away or not taking connections yet: `57P01` admin shutdown
 * (a restart aborts open transactions), `57P02` crash shutdown, `57P03` starting up or shutting
 * down; class `08` is a lost or refused connection.
 */
const GONE_SQLSTATE = /^(57P0[123]|08[0-9A-Z]{3})$/;
/** What node-postgres says when the socket closes under a query, or a client that lost it is used. */
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;
/**
 * TypeORM releases a query runner whose connection died; the transaction's next statement then
 * finds it released (a transaction holds its runner to the end, so nothing else releases it early).
 */
const RELEASED_RUNNER = 'QueryRunnerAlreadyReleasedError';

type Failure =
  { code?: unknown; message?: unknown; name?: unknown; driverError?: Failure } | null | undefined;

/**
 * The server behind `error` went away or could not be reached (shutdown, restart, a lost or refused
 * connection, however the driver or TypeORM reports it), as opposed to a statement it refused: the
 * same work may succeed on another server or once this one is back.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  for (const failure of [error as Failure, (error as Failure)?.driverError]) {
    if (typeof failure?.code === 'string' && GONE_SQLSTATE.test(failure.code)) return true;
    if (typeof failure?.message === 'string' && LOST_CONNECTION.test(failure.message)) return true;
    if (failure?.name === RELEASED_RUNNER) return true;
  }
  return networkFailureReason(error) !== undefined;
}
