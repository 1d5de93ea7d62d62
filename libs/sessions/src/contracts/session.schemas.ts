import { z } from 'zod';
import { commitSchema, projectSchema } from '@app/memories';
import {
  EVENT_KINDS,
  MAX_SESSION_LIST_LIMIT,
  MAX_TIMELINE_WINDOW,
  SESSION_LIMITS,
  SESSION_STATUSES,
} from '../domain/session';

/** Wire contracts of agent sessions, shared by REST, MCP and OpenAPI. */

const isoDateTime = z.iso.datetime({
  offset: true,
  error: 'must be an ISO-8601 date-time such as 2030-01-31T00:00:00Z',
});
const shortText = (max: number) => z.string().trim().min(1).max(max);

export const sessionIdSchema = z.uuid({ error: 'session id must be a UUID' });
export const eventKindSchema = z.enum(EVENT_KINDS, {
  error: `kind must be one of: ${EVENT_KINDS.join(', ')}`,
});
export const sessionStatusSchema = z.enum(SESSION_STATUSES, {
  error: `status must be one of: ${SESSION_STATUSES.join(', ')}`,
});

/** Fields of a session start, as REST and MCP accept them. */
export const startSessionFields = {
  id: sessionIdSchema
    .optional()
    .describe('Your own id for the session (a UUID): starting again with it answers the same session'),
  agent: shortText(100).default('unknown').describe('The coding agent, e.g. claude-code, cursor, codex'),
  project: projectSchema
    .optional()
    .describe('Project identity; overrides the one derived from git_remote (a remote URL is normalised)'),
  cwd: z.string().max(4096).optional().describe('Working directory of the session'),
  git_remote: z
    .string()
    .max(2048)
    .optional()
    .describe(
      'The repository remote; git@github.com:o/r.git and https://github.com/o/r are both project github.com/o/r',
    ),
  git_branch: z.string().max(255).optional(),
  git_commit: commitSchema.optional().describe('The commit the working tree is at (git rev-parse HEAD)'),
  started_at: isoDateTime.optional().describe('When it started on the client; now when absent'),
};
export const startSessionSchema = z.object(startSessionFields);
export type StartSessionBody = z.output<typeof startSessionSchema>;

export const MAX_SUMMARY_LENGTH = 16_000;

export const updateSessionFields = {
  status: sessionStatusSchema.optional().describe('ended or abandoned ends the session'),
  summary: z.string().max(MAX_SUMMARY_LENGTH).optional().describe('What the session did, in a few lines'),
  ended_at: isoDateTime.optional().describe('When it ended; now when status ends it without one'),
};
export const updateSessionSchema = z.object(updateSessionFields);
export type UpdateSessionBody = z.output<typeof updateSessionSchema>;

export const sessionEventSchema = z.object({
  id: z
    .string()
    .trim()
    .min(1, 'id must not be empty')
    .max(
      SESSION_LIMITS.maxClientIdLength,
      `id must be at most ${SESSION_LIMITS.maxClientIdLength} characters`,
    )
    .optional()
    .describe(
      'Your own id of the event (e.g. a UUID): sending the same id to the session again stores nothing (a resend after a timeout is safe)',
    ),
  kind: eventKindSchema,
  payload: z
    .record(z.string(), z.unknown())
    .describe('Any JSON object; secrets in it are redacted before storage'),
  created_at: isoDateTime.optional().describe('When it happened on the client; arrival time when absent'),
});
export const recordEventsSchema = z.object({
  events: z.array(sessionEventSchema).min(1, 'events must hold at least one event'),
});
export type RecordEventsBody = z.output<typeof recordEventsSchema>;

const intString = (name: string, max: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, `${name} must be a positive integer`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${name} must be between 1 and ${max}`);

export const listSessionsQuerySchema = z.object({
  project: projectSchema.optional().describe('A project identity or a git remote URL'),
  since: isoDateTime.optional().describe('Only sessions started at or after this time'),
  limit: intString('limit', MAX_SESSION_LIST_LIMIT).optional(),
  team: z
    .enum(['true', 'false'], { error: 'team must be true or false' })
    .transform((value) => value === 'true')
    .optional()
    .describe(
      "true: every session you may read (teammates' when the tenant turned team session visibility on, all for an admin); default: your own",
    ),
});
export type ListSessionsQuery = z.output<typeof listSessionsQuerySchema>;

export const timelineQuerySchema = z.object({
  around: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'around must be a memory id')
    .transform(Number)
    .optional()
    .describe('A memory id: the events around the time it was created; the newest events when absent'),
  window: intString('window', MAX_TIMELINE_WINDOW).optional().describe('Events on each side (default 10)'),
});
export type TimelineQuery = z.output<typeof timelineQuerySchema>;

// Response shapes (produced by the presenters).
export const sessionResponse = z.object({
  id: z.uuid(),
  agent: z.string(),
  project: z.string().nullable(),
  cwd: z.string().nullable(),
  git_remote: z.string().nullable(),
  git_branch: z.string().nullable(),
  git_commit: z.string().nullable(),
  status: sessionStatusSchema,
  summary: z.string().nullable(),
  started_at: z.string().describe('ISO-8601 with offset'),
  ended_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  owner: z.string().describe("the session's user (username)"),
});
export const startedSessionResponse = sessionResponse.extend({
  created: z.boolean().describe('false when a session with this id already existed (a repeated start)'),
});
export const sessionDetailResponse = sessionResponse.extend({
  event_counts: z.object(
    Object.fromEntries(EVENT_KINDS.map((kind) => [kind, z.number().int()])) as Record<
      (typeof EVENT_KINDS)[number],
      z.ZodNumber
    >,
  ),
  events_total: z.number().int(),
  events_processed: z.number().int().describe('events the background processing has handled'),
});
export const sessionListResponse = z.object({ sessions: z.array(sessionResponse) });
export const acceptedEventsResponse = z.object({
  accepted: z
    .number()
    .int()
    .describe('events stored now (after redaction); processing follows in the background'),
  duplicates: z
    .number()
    .int()
    .describe('events not stored because the session already had their id (sent before)'),
  session_id: z.uuid(),
});
export const sessionEventResponse = z.object({
  id: z.number().int(),
  kind: eventKindSchema,
  payload: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export const timelineResponse = z.object({
  session_id: z.uuid(),
  around: z.string().nullable().describe('the moment the events surround (the memory’s creation time)'),
  events: z.array(sessionEventResponse).describe('oldest first'),
});
