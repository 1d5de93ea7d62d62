import { z } from 'zod';
import type { AuditRecord } from '../domain/audit-record';
import { pageQuery } from './page';

/** `GET /api/admin/audit` and `cli audit`: filters, then the page. */
export const auditQuery = z
  .object({
    actor: z.string('must be a string').trim().min(1).max(128).optional().describe('Username or user id'),
    action: z
      .string('must be a string')
      .regex(
        /^[a-z][a-z0-9_.-]{0,99}\*?$/,
        'must be an action such as api_key.create, or a prefix ending in *',
      )
      .optional()
      .describe('Exact action (`api_key.revoke`), or a prefix ending in `*` (`api_key.*`)'),
    target: z
      .string('must be a string')
      .min(1)
      .max(200)
      .optional()
      .describe('Target id (a user, key, memory, job …)'),
    since: z.iso
      .datetime({ offset: true, error: 'must be an ISO-8601 date-time such as 2026-01-31T00:00:00Z' })
      .optional()
      .describe('Only rows at or after this time'),
  })
  .extend(pageQuery.shape);

export interface AuditQuery {
  /** Username or user id. */
  readonly actor?: string;
  readonly action?: string;
  /** `action` is a prefix (the query ended it with `*`). */
  readonly actionPrefix?: boolean;
  readonly target?: string;
  readonly since?: Date;
  readonly cursor?: string;
  readonly limit: number;
}

export const auditQuerySchema = auditQuery.transform((q): AuditQuery => ({
  actor: q.actor,
  action: q.action?.replace(/\*$/, ''),
  actionPrefix: q.action?.endsWith('*') === true,
  target: q.target,
  since: q.since === undefined ? undefined : new Date(q.since),
  cursor: q.cursor,
  limit: q.limit,
}));

export const auditEntryResponseSchema = z.object({
  id: z.number().int(),
  created_at: z.string(),
  actor: z
    .string()
    .nullable()
    .describe('Username of the key holder; null when an operator acted (see `via`)'),
  actor_id: z.uuid().nullable(),
  key_id: z.uuid().nullable(),
  via: z.string().nullable().describe('cli, bootstrap or worker when no key was involved'),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string().nullable(),
  request_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntryResponse = z.infer<typeof auditEntryResponseSchema>;

export const auditPageResponseSchema = z.object({
  entries: z.array(auditEntryResponseSchema).describe('Newest first'),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});

export function toAuditEntryResponse(record: AuditRecord): AuditEntryResponse {
  const via = record.details.via;
  return {
    id: Number(record.id),
    created_at: record.createdAt,
    actor: record.actorUsername,
    actor_id: record.actorId,
    key_id: record.keyId,
    via: record.actorId === null && typeof via === 'string' ? via : null,
    action: record.action,
    target_type: record.targetType,
    target_id: record.targetId,
    request_id: record.requestId,
    details: record.details,
  };
}
