import { DomainError, type ErrorKind } from '@app/kernel';

export enum SyncErrorCode {
  /** Not a cursor this server signed for this user (tampered, truncated or someone else's). */
  InvalidCursor = 'invalid_cursor',
  /** The cursor predates purged history; the client must drop its copy and seed again. */
  FullResyncRequired = 'full_resync_required',
  /** The user's history was rewritten (e.g. a restore); the cursor's numbering no longer applies. */
  EpochChanged = 'epoch_changed',
  /** `since` is not an ISO-8601 date-time. */
  InvalidSince = 'invalid_since',
}

const KIND: Record<SyncErrorCode, ErrorKind> = {
  [SyncErrorCode.InvalidCursor]: 'bad_request',
  [SyncErrorCode.InvalidSince]: 'bad_request',
  [SyncErrorCode.EpochChanged]: 'conflict',
  [SyncErrorCode.FullResyncRequired]: 'gone',
};

export class SyncError extends DomainError<SyncErrorCode> {
  constructor(code: SyncErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'SyncError';
  }
}
