/**
 * What kind of failure a domain error is. Transports map kinds, not codes: HTTP statuses and MCP
 * `isError` results in apps/api, retry decisions in the job executor (an `invalid` or `not_found`
 * job fails the same way on every attempt, so it is not retried).
 */
export type ErrorKind =
  | 'invalid'
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  /** Too large for what the caller may still keep (a storage quota): 413. */
  | 'too_large'
  /** Refused until later: a rate limit or a count quota (429). */
  | 'too_many_requests'
  | 'unavailable';

export interface DomainErrorOptions {
  /** Seconds a client should wait before retrying (unavailable and too_many_requests errors). */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/** The one base class of every domain error: a stable `code` clients see and a `kind` transports map. */
export abstract class DomainError<Code extends string = string> extends Error {
  readonly retryAfterSeconds?: number;

  protected constructor(
    readonly kind: ErrorKind,
    readonly code: Code,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The code as clients see it (`{detail, code}`); a domain may namespace its codes. */
  get publicCode(): string {
    return this.code;
  }
}

/** Errors a retry cannot fix: the same input fails the same way. */
export function isPermanentDomainError(error: unknown): boolean {
  return error instanceof DomainError && (error.kind === 'invalid' || error.kind === 'not_found');
}
