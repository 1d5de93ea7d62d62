import { DomainError, type ErrorKind } from '@app/kernel';

/** Why a secret operation failed; one place (the HTTP/MCP error mapper) turns codes into statuses. */
export enum SecretStoreErrorCode {
  /** Sealed, timed out, 5xx/429, network failure or no store configured → 503 + Retry-After. */
  Unavailable = 'unavailable',
  NotFound = 'not_found',
  /** Check-and-set lost: the secret already exists at another version. */
  Conflict = 'conflict',
  /** Credentials rejected even after re-login, or ciphertext that fails authentication. */
  Denied = 'denied',
}

// Denied is the server's problem, not the caller's (credentials refused, or a ciphertext that does
// not decrypt): nothing was stored in clear, and a client can only wait.
const KIND: Record<SecretStoreErrorCode, ErrorKind> = {
  [SecretStoreErrorCode.Unavailable]: 'unavailable',
  [SecretStoreErrorCode.Denied]: 'unavailable',
  [SecretStoreErrorCode.NotFound]: 'not_found',
  [SecretStoreErrorCode.Conflict]: 'conflict',
};

export class SecretStoreError extends DomainError<SecretStoreErrorCode> {
  constructor(
    code: SecretStoreErrorCode,
    message: string,
    /** Seconds a client should wait before retrying; set for `unavailable`. */
    retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(KIND[code], code, message, { retryAfterSeconds, cause: options?.cause });
    this.name = 'SecretStoreError';
  }

  override get publicCode(): string {
    return `secret_store_${this.code}`;
  }

  static unavailable(message: string, cause?: unknown): SecretStoreError {
    return new SecretStoreError(SecretStoreErrorCode.Unavailable, message, 5, { cause });
  }
}
