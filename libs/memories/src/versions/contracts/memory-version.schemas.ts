import { z } from 'zod';
import { memoryIdSchema, visibilitySchema } from '../../contracts/memory.schemas';
import { VERSION_CHANGE_FIELDS, VERSIONED_FIELDS } from '../../domain/memory-version';
import type { ListedMemoryVersion } from '../adapters/memory-version.repository';
import type { VersionDiff } from '../application/diff-memory-versions.use-case';
import type { RestoredVersion } from '../application/restore-memory-version.use-case';
import type { VersionPage } from '../application/list-memory-versions.use-case';

/** Wire contracts of memory versions, for REST (and any other transport). */

const versionNumberSchema = z
  .string()
  .regex(/^[1-9]\d{0,8}$/, 'version must be a positive integer')
  .transform(Number);
const versionRefSchema = z.union([z.literal('current'), versionNumberSchema], {
  error: 'must be a version number (a positive integer) or "current"',
});

export const memoryVersionParamsSchema = z.object({
  id: memoryIdSchema,
  version: versionNumberSchema.describe('The version number (1 is the oldest)'),
});
export type MemoryVersionParams = z.output<typeof memoryVersionParamsSchema>;

export const listVersionsQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, 'limit must be an integer between 1 and 200')
    .transform(Number)
    .pipe(z.number().min(1, 'limit must be between 1 and 200').max(200, 'limit must be between 1 and 200'))
    .default(50)
    .describe('At most this many versions (1–200, default 50)'),
  before: versionNumberSchema.optional().describe('Only versions older than this one (the next page)'),
});
export type ListVersionsQuery = z.output<typeof listVersionsQuerySchema>;

export const toVersionPage = (query: ListVersionsQuery): VersionPage => ({
  limit: query.limit,
  before: query.before,
});

export const diffVersionsQuerySchema = z.object({
  from: versionRefSchema.describe('The older side: a version number, or "current"'),
  to: versionRefSchema
    .default('current')
    .describe('The newer side: a version number, or "current" (default)'),
});
export type DiffVersionsQuery = z.output<typeof diffVersionsQuerySchema>;

const versionedFieldSchema = z.enum(VERSIONED_FIELDS);
const changeFieldSchema = z.enum(VERSION_CHANGE_FIELDS);

export const memoryVersionResponse = z.object({
  memory_id: z.number().int(),
  version: z.number().int().describe('1 is the oldest; the current state is not a version'),
  content: z.string().describe('a sensitive memory’s redacted text; a version never holds a secret'),
  category: z.string(),
  tags: z.array(z.string()),
  importance: z.number(),
  project: z.string().nullable(),
  visibility: visibilitySchema,
  is_sensitive: z.boolean(),
  author_id: z.string().nullable().describe('user id of who wrote this state'),
  author: z.string().nullable().describe('their username'),
  created_at: z.string().describe('when this state was written (ISO-8601 with offset)'),
  replaced_at: z.string().describe('when a change replaced it'),
  replaced_by_id: z.string().nullable().describe('user id of who made that change'),
  replaced_by: z.string().nullable().describe('their username'),
  changed_fields: z
    .array(changeFieldSchema)
    .describe('the fields that change touched (`anchors`: its links to code were set or verified)'),
});

export const memoryVersionsResponse = z.object({
  memory_id: z.number().int(),
  versions: z.array(memoryVersionResponse).describe('newest first'),
  next_before: z
    .number()
    .int()
    .nullable()
    .describe('pass as `before` for the next (older) page; null on the last page'),
});

export const versionDiffResponse = z.object({
  memory_id: z.number().int(),
  from: z.union([z.number().int(), z.literal('current')]),
  to: z.union([z.number().int(), z.literal('current')]),
  changed_fields: z.array(versionedFieldSchema),
  content_diff: z
    .array(z.object({ op: z.enum(['equal', 'insert', 'delete']), text: z.string() }))
    .describe('the content line by line, unchanged lines included'),
  unified: z.string().describe('the content as a unified diff; empty when it did not change'),
  fields: z
    .array(z.object({ field: versionedFieldSchema, from: z.unknown(), to: z.unknown() }))
    .describe('other fields that differ, with both values'),
});

export const restoreVersionResponse = z.object({
  memory_id: z.number().int(),
  restored: z.number().int().describe('the version brought back'),
  changed_fields: z
    .array(versionedFieldSchema)
    .describe('what the restore changed; empty when the memory already was in that state'),
});

export function presentMemoryVersion(v: ListedMemoryVersion): z.output<typeof memoryVersionResponse> {
  return {
    memory_id: v.memoryId,
    version: v.version,
    content: v.content,
    category: v.category,
    tags: [...v.tags],
    importance: v.importance,
    project: v.project,
    visibility: v.visibility,
    is_sensitive: v.isSensitive,
    author_id: v.authorId,
    author: v.author,
    created_at: v.validFrom,
    replaced_at: v.replacedAt,
    replaced_by_id: v.replacedBy,
    replaced_by: v.replacedByName,
    changed_fields: [...v.changedFields],
  };
}

export function presentMemoryVersions(
  memoryId: number,
  versions: readonly ListedMemoryVersion[],
  page: VersionPage,
): z.output<typeof memoryVersionsResponse> {
  const last = versions[versions.length - 1];
  return {
    memory_id: memoryId,
    versions: versions.map(presentMemoryVersion),
    next_before: versions.length === page.limit && last && last.version > 1 ? last.version : null,
  };
}

export function presentVersionDiff(diff: VersionDiff): z.output<typeof versionDiffResponse> {
  return {
    memory_id: diff.memoryId,
    from: diff.from,
    to: diff.to,
    changed_fields: [...diff.changedFields],
    content_diff: diff.lines.map((l) => ({ op: l.op, text: l.text })),
    unified: diff.unified,
    fields: diff.fields.map((f) => ({ field: f.field, from: f.from, to: f.to })),
  };
}

export function presentRestoredVersion(r: RestoredVersion): z.output<typeof restoreVersionResponse> {
  return { memory_id: r.memoryId, restored: r.restored, changed_fields: [...r.changedFields] };
}
