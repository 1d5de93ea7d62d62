import type {
  NewSession,
  NewSessionEvent,
  Session,
  SessionDetail,
  SessionEvent,
  SessionPatch,
} from '../domain/session';
import { SessionError } from '../domain/session.errors';
import {
  sessionIdSchema,
  type RecordEventsBody,
  type StartSessionBody,
  type UpdateSessionBody,
} from './session.schemas';

/** The one mapping between the session contracts and the use cases, used by REST and MCP alike. */

export function toNewSession(body: StartSessionBody): NewSession {
  return {
    id: body.id,
    agent: body.agent,
    project: body.project,
    cwd: body.cwd,
    gitRemote: body.git_remote,
    gitBranch: body.git_branch,
    gitCommit: body.git_commit,
    startedAt: body.started_at,
  };
}

export function toSessionPatch(body: UpdateSessionBody): SessionPatch {
  return { status: body.status, summary: body.summary, endedAt: body.ended_at };
}

export function toNewEvents(body: RecordEventsBody): NewSessionEvent[] {
  return body.events.map((event) => ({
    kind: event.kind,
    payload: event.payload,
    createdAt: event.created_at,
    clientId: event.id,
  }));
}

export function presentSession(session: Session) {
  return {
    id: session.id,
    agent: session.agent,
    project: session.project,
    cwd: session.cwd,
    git_remote: session.gitRemote,
    git_branch: session.gitBranch,
    git_commit: session.gitCommit,
    status: session.status,
    summary: session.summary,
    started_at: session.startedAt,
    ended_at: session.endedAt,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
    owner: session.owner,
  };
}

export function presentSessionDetail(session: SessionDetail) {
  return {
    ...presentSession(session),
    event_counts: { ...session.eventCounts.byKind },
    events_total: session.eventCounts.total,
    events_processed: session.eventCounts.processed,
  };
}

export function presentEvent(event: SessionEvent) {
  return { id: event.id, kind: event.kind, payload: event.payload, created_at: event.createdAt };
}

/** A session id from a path: one that is not even a UUID names no session (404, like an unknown one). */
export function toSessionId(raw: string): string {
  const parsed = sessionIdSchema.safeParse(raw);
  if (!parsed.success) throw SessionError.notFound(raw.slice(0, 64));
  return parsed.data;
}
