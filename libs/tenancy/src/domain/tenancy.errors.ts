export enum TenancyErrorCode {
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  UserNotFound = 'user_not_found',
  UserExists = 'user_exists',
  KeyNotFound = 'key_not_found',
  TenantNotFound = 'tenant_not_found',
  InvalidInput = 'invalid_input',
}

export class TenancyError extends Error {
  constructor(
    readonly code: TenancyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TenancyError';
  }
}
