import { DomainError, type ErrorKind } from '@app/kernel';
import { SESSION_LIMITS } from './session';

export enum SessionErrorCode {
  NotFound = 'session_not_found',
  /** The client-supplied id names a session of someone else. */
  IdTaken = 'session_id_taken',
  EventTooLarge = 'event_too_large',
  BatchTooLarge = 'event_batch_too_large',
  NoFieldsToUpdate = 'no_fields_to_update',
  /** An imported body holds no transcript entry naming its session. */
  NotATranscript = 'not_a_transcript',
}

const KIND: Record<SessionErrorCode, ErrorKind> = {
  [SessionErrorCode.NotFound]: 'not_found',
  [SessionErrorCode.IdTaken]: 'conflict',
  [SessionErrorCode.EventTooLarge]: 'invalid',
  [SessionErrorCode.BatchTooLarge]: 'invalid',
  [SessionErrorCode.NoFieldsToUpdate]: 'bad_request',
  [SessionErrorCode.NotATranscript]: 'invalid',
};

export class SessionError extends DomainError<SessionErrorCode> {
  constructor(code: SessionErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'SessionError';
  }

  static notFound(id: string): SessionError {
    return new SessionError(SessionErrorCode.NotFound, `Session ${id} not found`);
  }

  static idTaken(id: string): SessionError {
    return new SessionError(
      SessionErrorCode.IdTaken,
      `Session id ${id} is already in use; start the session with another id (or none)`,
    );
  }

  static eventTooLarge(index: number, bytes: number): SessionError {
    return new SessionError(
      SessionErrorCode.EventTooLarge,
      `events.${index}: the payload is ${bytes} bytes as JSON; at most ${SESSION_LIMITS.maxEventBytes} are accepted per event`,
    );
  }

  static batchTooLarge(detail: string): SessionError {
    return new SessionError(SessionErrorCode.BatchTooLarge, detail);
  }

  static notATranscript(detail: string): SessionError {
    return new SessionError(SessionErrorCode.NotATranscript, detail);
  }
}
