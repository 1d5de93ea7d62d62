export enum MemoryErrorCode {
  NotFound = 'memory_not_found',
  InvalidInput = 'validation_failed',
  ContentTooLarge = 'content_too_large',
  NoFieldsToUpdate = 'no_fields_to_update',
  NotDeleted = 'memory_not_deleted',
  DuplicateContent = 'duplicate_content',
  BatchTooLarge = 'batch_too_large',
  IdempotencyKeyReused = 'idempotency_key_reused',
}

export class MemoryError extends Error {
  constructor(
    readonly code: MemoryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MemoryError';
  }

  static notFound(id: number | string): MemoryError {
    return new MemoryError(MemoryErrorCode.NotFound, `Memory ${id} not found`);
  }
}
