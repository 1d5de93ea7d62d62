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

export class SyncError extends Error {
  constructor(
    readonly code: SyncErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SyncError';
  }
}
