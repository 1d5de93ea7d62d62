import { DomainError, type ErrorKind } from '@app/kernel';

export enum AdminJobErrorCode {
  /** No such job in the caller's tenant (another tenant's job answers the same) (404). */
  NotFound = 'job_not_found',
}

const KIND: Record<AdminJobErrorCode, ErrorKind> = {
  [AdminJobErrorCode.NotFound]: 'not_found',
};

export class AdminJobError extends DomainError<AdminJobErrorCode> {
  constructor(code: AdminJobErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'AdminJobError';
  }

  static notFound(id: string): AdminJobError {
    return new AdminJobError(AdminJobErrorCode.NotFound, `Job ${id.slice(0, 64)} not found`);
  }
}
