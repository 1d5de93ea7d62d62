import { z } from 'zod';
import { canonicalCategory } from '../domain/categories';
import { LINK_TYPES } from '../domain/memory-link';
import { VERSION_CHANGE_FIELDS } from '../domain/memory-version';
import { projectSchema } from './project.schemas';
import { anchorResponse, anchorsInputSchema, branchSchema } from './anchor.schemas';
import { PIN_SCOPES } from '../domain/pin';

/**
 * Wire contracts shared by REST, MCP and jobs (seed-compatible: claude-memory-mcp's server).
 * Unknown fields are stripped, never rejected, so newer clients keep working.
 */

export const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 64;

const categoryPattern = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/** A category slug, a canonical category's singular folded into its plural (`decision` → `decisions`). */
export const categorySchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    categoryPattern,
    'category must be a short slug: 1-64 of a-z, 0-9, "_", "-", "." starting with a letter or digit',
  )
  .transform(canonicalCategory);

/** A category a filter compares with, folded as writes fold it. */
const categoryFilterSchema = z.string().trim().min(1).max(64).transform(canonicalCategory);

/** Tags arrive as "a, b" (seed clients) or ["a","b"]; stored as a de-duplicated list. */
export const tagsSchema = z
  .union([z.string().max(4096), z.array(z.string().max(MAX_TAG_LENGTH)).max(MAX_TAGS)])
  .transform((value, ctx) => {
    const parts = (Array.isArray(value) ? value : value.split(','))
      .map((t) => t.trim())
      .filter((t) => t !== '');
    const tags = [...new Set(parts)];
    if (tags.length > MAX_TAGS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_TAGS} tags` });
      return z.NEVER;
    }
    const tooLong = tags.find((t) => t.length > MAX_TAG_LENGTH);
    if (tooLong) {
      ctx.addIssue({ code: 'custom', message: `each tag is at most ${MAX_TAG_LENGTH} characters` });
      return z.NEVER;
    }
    if (tags.some((t) => t.includes(','))) {
      ctx.addIssue({ code: 'custom', message: 'tags must not contain commas' });
      return z.NEVER;
    }
    return tags;
  });

/** Accepts 0.7 and "0.7" (form-like clients); rejects anything outside 0..1. */
export const importanceSchema = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
  z.number().min(0, 'importance must be between 0 and 1').max(1, 'importance must be between 0 and 1'),
);

export const contentSchema = z
  .string({ error: 'content is required and must be a string' })
  .min(1, 'content must not be empty');
const keywordsSchema = z.string().max(4096, 'expanded_keywords is at most 4096 characters');

/**
 * `team`: every teammate reads it; `private`: its owner, users it is shared with, and admins.
 * Absent: the key's default, else the configured default.
 */
export const visibilitySchema = z.enum(['team', 'private'], {
  error: 'visibility must be "team" or "private"',
});

/** When every read stops returning the memory (ISO date-time, in the future). */
export const expiresAtSchema = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'expires_at must be an ISO-8601 date-time')
  .transform((v) => new Date(v))
  .refine((d) => d.getTime() > Date.now(), 'expires_at must be in the future');

export const storeMemorySchema = z.object({
  content: contentSchema,
  category: categorySchema.default('facts'),
  tags: tagsSchema.default([]),
  expanded_keywords: keywordsSchema.default(''),
  importance: importanceSchema.default(0.5),
  project: projectSchema.nullable().optional(),
  visibility: visibilitySchema.optional(),
  expires_at: expiresAtSchema.optional(),
  force_sensitive: z.boolean().default(false),
  anchors: anchorsInputSchema.optional(),
  branch: branchSchema
    .optional()
    .describe(
      'a branch of the project (needs project): recall and the startup context serve the memory on that branch only, until it is merged',
    ),
});
export type StoreMemoryBody = z.output<typeof storeMemorySchema>;

export const updateMemorySchema = z.object({
  content: contentSchema.optional(),
  category: categorySchema.optional(),
  tags: tagsSchema.optional(),
  expanded_keywords: keywordsSchema.optional(),
  importance: importanceSchema.optional(),
  visibility: visibilitySchema.optional(),
  expires_at: expiresAtSchema.optional(),
  anchors: anchorsInputSchema.optional(),
});
export type UpdateMemoryBody = z.output<typeof updateMemorySchema>;

/** The largest list offset: the page query adds it to the limit in a 32-bit integer. */
export const MAX_LIST_OFFSET = 1_000_000_000;

const nonNegativeIntString = (name: string) =>
  z
    .string()
    .regex(/^\d{1,12}$/, `${name} must be a non-negative integer`)
    .transform(Number);

export const listMemoriesQuerySchema = z.object({
  category: categoryFilterSchema.optional(),
  tag: z.string().trim().min(1).max(MAX_TAG_LENGTH).optional(),
  project: projectSchema.optional(),
  visibility: visibilitySchema.optional().describe('Only team or only private memories'),
  author: z.string().trim().min(1).max(100).optional().describe("Only this user's memories (their username)"),
  limit: nonNegativeIntString('limit').optional(),
  offset: nonNegativeIntString('offset')
    .refine((n) => n <= MAX_LIST_OFFSET, `offset must be at most ${MAX_LIST_OFFSET}`)
    .optional(),
});
export type ListMemoriesQuery = z.output<typeof listMemoriesQuerySchema>;

export const bulkDeleteSchema = z
  .object({
    category: categoryFilterSchema.optional(),
    tag: z.string().trim().min(1).max(MAX_TAG_LENGTH).optional(),
    project: projectSchema.optional(),
    dry_run: z.boolean().default(true),
  })
  .refine((b) => b.category !== undefined || b.tag !== undefined || b.project !== undefined, {
    message: 'give at least one of category, tag or project',
  });
export type BulkDeleteBody = z.output<typeof bulkDeleteSchema>;

/**
 * A past time kept as sent (Postgres keeps microseconds; a JS Date would round them to ms, and a
 * re-imported export must carry the very same timestamps).
 */
/** An optional field that is dropped, not refused, when malformed. */
const informative = <S extends z.ZodType>(schema: S) =>
  z.preprocess((v) => (schema.safeParse(v).success ? v : undefined), schema.optional());

const ISO_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z|[+-]\d\d:?\d\d)$/i;
/** An ISO-8601 date-time with an offset, as Postgres and Date.parse both read it. */
export const isIsoDateTime = (v: string): boolean => ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v));
const pastTimestampSchema = (name: string) =>
  z
    .string()
    .refine(isIsoDateTime, {
      message: `${name} must be an ISO-8601 date-time`,
      abort: true,
    })
    .refine((v) => Date.parse(v) <= Date.now(), `${name} must not be in the future`);

/** At most this many earlier versions per imported memory. */
export const MAX_IMPORTED_VERSIONS = 1000;

/**
 * An earlier version of a memory as an export writes it and an import reads it back. Its text is
 * screened again on import; its authors become the importer.
 */
export const portableVersionSchema = z.object({
  version: z.number().int().positive().max(1_000_000_000),
  content: z.string(),
  category: z.string().min(1).max(64),
  tags: z.array(z.string().max(MAX_TAG_LENGTH)).max(MAX_TAGS),
  importance: z.number().min(0).max(1),
  project: z.string().max(512).nullable(),
  visibility: visibilitySchema,
  is_sensitive: z.boolean().default(false),
  created_at: pastTimestampSchema('versions[].created_at').describe('when this state was written'),
  replaced_at: pastTimestampSchema('versions[].replaced_at').describe('when a change replaced it'),
  changed_fields: z.array(z.enum(VERSION_CHANGE_FIELDS)).describe('the fields that change touched'),
});
export type PortableVersionBody = z.output<typeof portableVersionSchema>;

/**
 * One import item: a store body, plus the original times when it comes from an export, and its id,
 * links and earlier versions there (links between memories of the same import are made again).
 * Other export fields (is_sensitive, shares, deleted_at) are stripped: content is screened again,
 * shares name users of the exporting account.
 */
export const importMemoryItemSchema = storeMemorySchema
  .extend({
    created_at: pastTimestampSchema('created_at').optional(),
    updated_at: pastTimestampSchema('updated_at').optional(),
    // Informative: used to remake links between memories of the same import; malformed → ignored.
    id: informative(z.number().int().positive()),
    links: informative(
      z.array(z.object({ id: z.number().int().positive(), link_type: z.enum(LINK_TYPES) })).max(100),
    ),
    versions: z
      .array(portableVersionSchema)
      .max(MAX_IMPORTED_VERSIONS, `at most ${MAX_IMPORTED_VERSIONS} versions per memory`)
      .refine((vs) => new Set(vs.map((v) => v.version)).size === vs.length, 'version numbers must be unique')
      .optional(),
  })
  .refine(
    (m) =>
      m.created_at === undefined ||
      m.updated_at === undefined ||
      Date.parse(m.updated_at) >= Date.parse(m.created_at),
    { message: 'updated_at must not be before created_at', path: ['updated_at'] },
  );
export type ImportMemoryItemBody = z.output<typeof importMemoryItemSchema>;

export const importMemoriesSchema = z.array(importMemoryItemSchema, {
  error: 'body must be a JSON array of memories',
});

export const memoryIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, 'memory id must be a positive integer')
  .transform(Number);

// Response shapes (documented in OpenAPI; produced by the presenters).
export const storedMemoryResponse = z.object({
  id: z.number().int(),
  category: z.string(),
  importance: z.number(),
  duplicate_of: z
    .number()
    .int()
    .optional()
    .describe(
      'Present when nothing new was stored: the id of the memory that already says this (yours, or a teammate’s team memory), equal to `id`',
    ),
  match: z
    .enum(['exact', 'near'])
    .optional()
    .describe('With `duplicate_of`: the same text, or the same meaning (a team memory)'),
  similarity: z.number().min(0).max(1).optional().describe('With `duplicate_of`: 1 for the same text'),
  review_state: z
    .literal('proposed')
    .optional()
    .describe(
      'Present when the memory waits for review: a correction of a teammate’s memory you may not change, or a team memory in a tenant that reviews them. Recall serves it once accepted',
    ),
});
export const memoryListItemResponse = z.object({
  id: z.number().int(),
  content: z.string(),
  category: z.string(),
  tags: z.string().describe('comma-separated'),
  importance: z.number(),
  project: z.string().nullable(),
  is_sensitive: z.boolean(),
  visibility: visibilitySchema,
  expires_at: z.string().nullable().describe('when reads stop returning it (null: never)'),
  owner: z.string().describe('username of the memory’s owner'),
  shared_by: z
    .string()
    .nullable()
    .describe(
      'the owner’s username when the caller reads it through a share (directly or by tag); null otherwise',
    ),
  created_at: z.string().describe('ISO-8601 with offset'),
  updated_at: z.string(),
  pinned: z
    .array(z.enum(PIN_SCOPES))
    .optional()
    .describe(
      'pins that put it first in the startup context: team (an admin’s, for everyone) and user (your own); empty when none (on the list, a memory and recall results)',
    ),
  review_state: z
    .enum(['proposed', 'rejected'])
    .optional()
    .describe(
      'present on a proposal waiting for review (a teammate’s correction, or a team memory in a tenant that reviews them) and on a rejected one; absent: in force',
    ),
  anchors: z.array(anchorResponse).optional().describe('the code it speaks of; absent when none'),
  branch: z
    .string()
    .optional()
    .describe('the branch of its project it belongs to until merged; absent: the whole project'),
  code_state: z
    .enum(['current', 'stale', 'orphaned'])
    .optional()
    .describe(
      'with anchors: current, stale (anchored code changed since; verify or correct it) or orphaned (a file it cites was deleted)',
    ),
});
export const memoryDetailResponse = memoryListItemResponse.extend({ expanded_keywords: z.string() });
export const memoryListResponse = z.object({
  memories: z.array(memoryListItemResponse),
  total: z.number().int(),
});
export const deleteResponse = z.object({ deleted: z.number().int(), preview: z.string() });
export const updateResponse = z.object({ updated: z.number().int() });
export const restoreResponse = z.object({ restored: z.number().int() });
export const purgeResponse = z.object({ purged: z.number().int() });
export const bulkDeleteResponse = z.object({
  matched: z.number().int(),
  deleted: z.number().int(),
  dry_run: z.boolean(),
});
