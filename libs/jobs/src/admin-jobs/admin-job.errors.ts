import { DomainError, type ErrorKind } from '@app/kernel';

export enum AdminJobErrorCode {
  /** No such job in the caller's tenant (another tenant's job answers the same) (404). */
  NotFound = 'job_not_found',
  /** Retry of a job that has not failed (409). */
  NotFailed = 'job_not_failed',
  /** Cancel of a job that is running or finished (409). */
  NotCancellable = 'job_not_cancellable',
  /** Redis did not answer (503). */
  QueueUnavailable = 'queue_unavailable',
}

const KIND: Record<AdminJobErrorCode, ErrorKind> = {
  [AdminJobErrorCode.NotFound]: 'not_found',
  [AdminJobErrorCode.NotFailed]: 'conflict',
  [AdminJobErrorCode.NotCancellable]: 'conflict',
  [AdminJobErrorCode.QueueUnavailable]: 'unavailable',
};

export class AdminJobError extends DomainError<AdminJobErrorCode> {
  constructor(code: AdminJobErrorCode, message: string, retryAfterSeconds?: number) {
    super(KIND[code], code, message, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });
    this.name = 'AdminJobError';
  }

  static notFound(id: string): AdminJobError {
    return new AdminJobError(AdminJobErrorCode.NotFound, `Job ${id.slice(0, 64)} not found`);
  }

  static queueUnavailable(reason: string): AdminJobError {
    return new AdminJobError(
      AdminJobErrorCode.QueueUnavailable,
      `The job queue is unavailable: ${reason}`,
      5,
    );
  }
}
