import { ZodError } from 'zod';
import { isPermanentDomainError } from '@app/kernel';

export enum JobsErrorCode {
  MissingHandler = 'missing_handler',
  DuplicateHandler = 'duplicate_handler',
  UnknownJob = 'unknown_job',
  QueueUnavailable = 'queue_unavailable',
  QueueClosed = 'queue_closed',
}

export class JobsError extends Error {
  constructor(
    readonly code: JobsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'JobsError';
  }
}

/** Thrown by a handler when retrying cannot help (bad payload, unknown job). The job fails at once. */
export class UnrecoverableJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnrecoverableJobError';
  }
}

/**
 * Validation failures are deterministic: a retry would fail the same way. So are domain errors of
 * kind `invalid` or `not_found` (a memory purged before its job ran).
 */
export function isRetryableJobError(error: unknown): boolean {
  return !(
    error instanceof UnrecoverableJobError ||
    error instanceof ZodError ||
    isPermanentDomainError(error)
  );
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
