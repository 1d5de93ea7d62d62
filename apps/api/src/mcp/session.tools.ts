import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import {
  acceptedEventsResponse,
  MAX_SUMMARY_LENGTH,
  presentSession,
  RecordSessionEventsUseCase,
  sessionIdSchema,
  sessionResponse,
  SESSION_LIMITS,
  StartSessionUseCase,
  startedSessionResponse,
  startSessionFields,
  toNewSession,
  UpdateSessionUseCase,
} from '@app/sessions';
import { defineTool, type McpToolDefinition } from './mcp-tool';

const sessionIdArg = sessionIdSchema.describe('The id session_start answered (or the one you gave it)');

/** Agent sessions: start one, note what matters during it, end it with a summary. */
@Injectable()
export class SessionTools {
  readonly tools: McpToolDefinition[];

  constructor(
    private readonly startSession: StartSessionUseCase,
    private readonly updateSession: UpdateSessionUseCase,
    private readonly recordEvents: RecordSessionEventsUseCase,
  ) {
    this.tools = [this.start(), this.note(), this.end()];
  }

  private start() {
    return defineTool({
      name: 'session_start',
      title: 'Start a session',
      description:
        'Call once at the start of a working session (when no hook started one for you): records which agent works in which project, so later sessions can see what happened. Pass git_remote (the repository URL; git@github.com:o/r.git and https://github.com/o/r are the same project) or project; pass your own UUID as id to make repeated calls answer the same session. Returns the session {id, project, status, started_at, created, …}; use its id with session_note and session_end.',
      scope: 'sessions:write',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      input: z.strictObject(startSessionFields),
      output: startedSessionResponse,
      run: async (principal, args) => {
        const session = await this.startSession.execute(principal, toNewSession(args));
        const project = session.project ? ` in project ${session.project}` : '';
        return {
          text: `${session.created ? 'Started' : 'Already started:'} session ${session.id}${project}.`,
          data: { ...presentSession(session), created: session.created },
        };
      },
    });
  }

  private note() {
    return defineTool({
      name: 'session_note',
      title: 'Note something in the session',
      description:
        'Record a note in the current session: something the user asked you to remember ("remember that …": kind note), a decision taken, something the user corrected ("no, use X instead": kind correction), or an observation worth keeping with the session’s history. It is stored at once (secrets redacted); when the session ends, notes and corrections become memories of the session’s project unless you already have them — a note (not a decision or correction) tagged `requested`, so the next startup_context of the project lists it. To store a memory right away use memory_store (with the tag requested for what the user asked to remember). Returns {accepted, duplicates, session_id}.',
      scope: 'sessions:write',
      rateLimit: 'events',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: z.strictObject({
        session_id: sessionIdArg,
        text: z
          .string()
          .min(1)
          .max(SESSION_LIMITS.maxEventBytes / 2)
          .describe('The note, self-contained'),
        kind: z
          .enum(['note', 'correction', 'observation'])
          .default('note')
          .describe(
            'note: what the user asked to remember, or anything else worth keeping; correction: the user corrected you; observation: something you noticed (kept with the session only)',
          ),
      }),
      output: acceptedEventsResponse,
      run: async (principal, args) => {
        const recorded = await this.recordEvents.execute(principal, args.session_id, [
          { kind: args.kind, payload: { text: args.text } },
        ]);
        return {
          text: `Noted (${args.kind}) in session ${args.session_id}.`,
          data: { ...recorded, session_id: args.session_id },
        };
      },
    });
  }

  private end() {
    return defineTool({
      name: 'session_end',
      title: 'End a session',
      description:
        'Call when the work of the session is done: ends it and keeps a short summary of what was done and decided (later sessions in the project see it). status abandoned marks a session that was given up. Ending it turns the session’s notes, corrections and decisions into memories in the background. Calling it again updates the summary. Returns the session {id, status, summary, ended_at, …}.',
      scope: 'sessions:write',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      input: z.strictObject({
        session_id: sessionIdArg,
        summary: z
          .string()
          .max(MAX_SUMMARY_LENGTH)
          .optional()
          .describe('What was done and decided, in a few lines'),
        status: z.enum(['ended', 'abandoned']).default('ended'),
      }),
      output: sessionResponse,
      run: async (principal, args) => {
        const session = await this.updateSession.execute(principal, args.session_id, {
          status: args.status,
          summary: args.summary,
        });
        return { text: `Session ${session.id} ${session.status}.`, data: presentSession(session) };
      },
    });
  }
}
