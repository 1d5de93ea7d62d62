/** Agent sessions: one coding-agent run of one user, and what was captured during it. */

export const SESSION_STATUSES = ['active', 'ended', 'abandoned'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const EVENT_KINDS = ['prompt', 'tool_call', 'observation', 'note', 'correction'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface Session {
  readonly id: string;
  readonly agent: string;
  readonly project: string | null;
  readonly cwd: string | null;
  readonly gitRemote: string | null;
  readonly gitBranch: string | null;
  /** The commit the session started at (captured memories are anchored to it). */
  readonly gitCommit: string | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly status: SessionStatus;
  readonly summary: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The username of the session's user. */
  readonly owner: string;
}

export interface NewSession {
  /** Client-supplied id: starting again with the same id answers the existing session. */
  readonly id?: string;
  readonly agent: string;
  /** Explicit project identity; overrides the one derived from `gitRemote`. */
  readonly project?: string;
  readonly cwd?: string;
  readonly gitRemote?: string;
  readonly gitBranch?: string;
  readonly gitCommit?: string;
  readonly startedAt?: string;
}

export interface SessionPatch {
  readonly status?: SessionStatus;
  readonly summary?: string;
  readonly endedAt?: string;
}

export interface NewSessionEvent {
  readonly kind: EventKind;
  readonly payload: unknown;
  /** When it happened on the client (spooled events arrive later); the arrival time otherwise. */
  readonly createdAt?: string;
  /** The client's own id of the event: the same id sent again to the session is not stored twice. */
  readonly clientId?: string;
}

/** What a batch did: events stored now, and events whose client id the session already had. */
export interface RecordedEvents {
  readonly accepted: number;
  readonly duplicates: number;
}

export interface SessionEvent {
  readonly id: number;
  readonly sessionId: string;
  readonly kind: EventKind;
  readonly payload: unknown;
  readonly createdAt: string;
}

/** Events per kind, and how many the `sessions.process` job has handled. */
export interface SessionEventCounts {
  readonly byKind: Readonly<Record<EventKind, number>>;
  readonly total: number;
  readonly processed: number;
}

export interface SessionDetail extends Session {
  readonly eventCounts: SessionEventCounts;
}

/** Size caps of captured events, checked on what the client sent (before redaction). */
export const SESSION_LIMITS = {
  /** One event's payload, as JSON. */
  maxEventBytes: 16 * 1024,
  /** Events in one `POST /api/sessions/{id}/events`. */
  maxBatchEvents: 100,
  /** All payloads of one batch together, as JSON. */
  maxBatchBytes: 256 * 1024,
  /** A client event id. */
  maxClientIdLength: 100,
} as const;

export const DEFAULT_SESSION_LIST_LIMIT = 20;
export const MAX_SESSION_LIST_LIMIT = 100;
/** Timeline: events on each side of the moment (or the newest ones). */
export const DEFAULT_TIMELINE_WINDOW = 10;
export const MAX_TIMELINE_WINDOW = 100;
