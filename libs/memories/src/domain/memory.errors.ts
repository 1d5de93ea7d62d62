import { DomainError, type ErrorKind } from '@app/kernel';

export enum MemoryErrorCode {
  NotFound = 'memory_not_found',
  InvalidInput = 'validation_failed',
  ContentTooLarge = 'content_too_large',
  NoFieldsToUpdate = 'no_fields_to_update',
  NotDeleted = 'memory_not_deleted',
  DuplicateContent = 'duplicate_content',
  BatchTooLarge = 'batch_too_large',
  IdempotencyKeyReused = 'idempotency_key_reused',
  /** Visible to the caller but not theirs to change (a teammate's team memory). */
  Forbidden = 'forbidden',
  ShareWithSelf = 'share_with_self',
  UserNotFound = 'user_not_found',
  VersionNotFound = 'memory_version_not_found',
  /** The version held a secret, which versions do not keep: its content cannot come back. */
  VersionSecretLost = 'version_secret_lost',
  /** Accept or reject of a memory that is not a proposal waiting for review. */
  NotProposed = 'not_a_proposal',
  /** A code event id the tenant does not have. */
  CodeEventNotFound = 'code_event_not_found',
  /** Verify of a memory without anchors: there is no code to confirm it against. */
  NotAnchored = 'memory_not_anchored',
}

const KIND: Record<MemoryErrorCode, ErrorKind> = {
  [MemoryErrorCode.NotFound]: 'not_found',
  [MemoryErrorCode.InvalidInput]: 'invalid',
  [MemoryErrorCode.ContentTooLarge]: 'invalid',
  [MemoryErrorCode.IdempotencyKeyReused]: 'invalid',
  [MemoryErrorCode.NoFieldsToUpdate]: 'bad_request',
  [MemoryErrorCode.BatchTooLarge]: 'bad_request',
  [MemoryErrorCode.NotDeleted]: 'conflict',
  [MemoryErrorCode.DuplicateContent]: 'conflict',
  [MemoryErrorCode.Forbidden]: 'forbidden',
  [MemoryErrorCode.ShareWithSelf]: 'bad_request',
  [MemoryErrorCode.UserNotFound]: 'not_found',
  [MemoryErrorCode.VersionNotFound]: 'not_found',
  [MemoryErrorCode.VersionSecretLost]: 'conflict',
  [MemoryErrorCode.NotProposed]: 'conflict',
  [MemoryErrorCode.CodeEventNotFound]: 'not_found',
  [MemoryErrorCode.NotAnchored]: 'conflict',
};

export class MemoryError extends DomainError<MemoryErrorCode> {
  constructor(code: MemoryErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'MemoryError';
  }

  static notFound(id: number | string): MemoryError {
    return new MemoryError(MemoryErrorCode.NotFound, `Memory ${id} not found`);
  }
}
