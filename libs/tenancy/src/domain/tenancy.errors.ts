import { DomainError, type ErrorKind } from '@app/kernel';

export enum TenancyErrorCode {
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  UserNotFound = 'user_not_found',
  UserExists = 'user_exists',
  KeyNotFound = 'key_not_found',
  /** A prefix that names more than one key of the tenant: use the id (409). */
  KeyAmbiguous = 'key_ambiguous',
  /** Rotating a key that is revoked, expired or already rotated (409). */
  KeyNotActive = 'key_not_active',
  TenantNotFound = 'tenant_not_found',
  /** A cookie-authenticated change without the session's CSRF token, or from another origin (403). */
  CsrfRejected = 'csrf_rejected',
  /** The console's sign-in with the identity provider could not be completed (401). */
  SignInFailed = 'sign_in_failed',
  // The same code as every other contract violation (docs/api.md lists one code set).
  InvalidInput = 'validation_failed',
}

const KIND: Record<TenancyErrorCode, ErrorKind> = {
  [TenancyErrorCode.Unauthenticated]: 'unauthenticated',
  [TenancyErrorCode.Forbidden]: 'forbidden',
  [TenancyErrorCode.UserNotFound]: 'not_found',
  [TenancyErrorCode.KeyNotFound]: 'not_found',
  [TenancyErrorCode.KeyAmbiguous]: 'conflict',
  [TenancyErrorCode.KeyNotActive]: 'conflict',
  [TenancyErrorCode.TenantNotFound]: 'not_found',
  [TenancyErrorCode.CsrfRejected]: 'forbidden',
  [TenancyErrorCode.SignInFailed]: 'unauthenticated',
  [TenancyErrorCode.UserExists]: 'conflict',
  [TenancyErrorCode.InvalidInput]: 'invalid',
};

export class TenancyError extends DomainError<TenancyErrorCode> {
  constructor(code: TenancyErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'TenancyError';
  }
}
