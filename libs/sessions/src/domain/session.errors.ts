import { DomainError, type ErrorKind } from '@app/kernel';
import { SESSION_LIMITS } from './session';
import { MAX_STARTUP_PROJECT_LENGTH, MIN_STARTUP_BUDGET, MIN_STARTUP_TOKENS } from './startup-context';

export enum SessionErrorCode {
  NotFound = 'session_not_found',
  /** A teammate's session the caller may read (team session visibility) but never change. */
  NotWritable = 'session_not_writable',
  /** The client-supplied id names a session of someone else. */
  IdTaken = 'session_id_taken',
  EventTooLarge = 'event_too_large',
  BatchTooLarge = 'event_batch_too_large',
  NoFieldsToUpdate = 'no_fields_to_update',
  /** An imported body holds no transcript entry naming its session. */
  NotATranscript = 'not_a_transcript',
  StartupBudget = 'startup_budget_out_of_range',
  StartupProject = 'startup_project_too_long',
}

const KIND: Record<SessionErrorCode, ErrorKind> = {
  [SessionErrorCode.NotFound]: 'not_found',
  [SessionErrorCode.NotWritable]: 'forbidden',
  [SessionErrorCode.IdTaken]: 'conflict',
  [SessionErrorCode.EventTooLarge]: 'invalid',
  [SessionErrorCode.BatchTooLarge]: 'invalid',
  [SessionErrorCode.NoFieldsToUpdate]: 'bad_request',
  [SessionErrorCode.NotATranscript]: 'invalid',
  [SessionErrorCode.StartupBudget]: 'invalid',
  [SessionErrorCode.StartupProject]: 'invalid',
};

export class SessionError extends DomainError<SessionErrorCode> {
  constructor(code: SessionErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'SessionError';
  }

  static notFound(id: string): SessionError {
    return new SessionError(SessionErrorCode.NotFound, `Session ${id} not found`);
  }

  static notWritable(id: string): SessionError {
    return new SessionError(
      SessionErrorCode.NotWritable,
      `Session ${id} belongs to a teammate: you may read it, but only its own user changes it or adds events`,
    );
  }

  static startupBudget(budget: number, max: number): SessionError {
    return new SessionError(
      SessionErrorCode.StartupBudget,
      `budget must be between ${MIN_STARTUP_BUDGET} and ${max} characters (got ${budget})`,
    );
  }

  static startupTokens(tokens: number, max: number): SessionError {
    return new SessionError(
      SessionErrorCode.StartupBudget,
      `tokens must be a whole number between ${MIN_STARTUP_TOKENS} and ${max} (got ${tokens})`,
    );
  }

  static startupProject(length: number): SessionError {
    return new SessionError(
      SessionErrorCode.StartupProject,
      `project must be at most ${MAX_STARTUP_PROJECT_LENGTH} characters once normalised (got ${length})`,
    );
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
