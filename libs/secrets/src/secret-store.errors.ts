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

export class SecretStoreError extends Error {
  constructor(
    readonly code: SecretStoreErrorCode,
    message: string,
    /** Seconds a client should wait before retrying; set for `unavailable`. */
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SecretStoreError';
  }

  static unavailable(message: string, cause?: unknown): SecretStoreError {
    return new SecretStoreError(SecretStoreErrorCode.Unavailable, message, 5, { cause });
  }
}
