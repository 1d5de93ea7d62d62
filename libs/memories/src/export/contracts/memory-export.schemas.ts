import { z } from 'zod';
import { presentPortableVersion } from '../../contracts/memory.mapping';
import { isIsoDateTime, portableVersionSchema, visibilitySchema } from '../../contracts/memory.schemas';
import { projectSchema } from '../../contracts/project.schemas';
import { LINK_TYPES } from '../../domain/memory-link';
import { EXPORT_FORMATS, type ExportedMemory, type ExportInput } from '../domain/memory-export';

export const exportMemoriesQuerySchema = z.object({
  format: z.enum(EXPORT_FORMATS, { error: 'format must be json, jsonl or markdown' }).default('json'),
  project: projectSchema.optional(),
  since: z
    .string()
    .refine(isIsoDateTime, 'since must be an ISO-8601 date-time with an offset, e.g. 2025-01-31T12:00:00Z')
    .optional(),
  include_deleted: z
    .enum(['true', 'false'], { error: 'include_deleted must be true or false' })
    .transform((v) => v === 'true')
    .default(false),
});
export type ExportMemoriesQuery = z.output<typeof exportMemoriesQuerySchema>;

export const toExportInput = (query: ExportMemoriesQuery): ExportInput => ({
  format: query.format,
  project: query.project,
  since: query.since,
  includeDeleted: query.include_deleted,
});

/** One exported memory on the wire: an import item (POST /api/memories/import) plus what is only informative. */
export const exportedMemoryResponse = z.object({
  id: z.number().int(),
  content: z.string().describe('a sensitive memory’s redacted text; the secret itself is never exported'),
  category: z.string(),
  tags: z.array(z.string()),
  expanded_keywords: z.string(),
  importance: z.number(),
  project: z.string().nullable(),
  visibility: visibilitySchema,
  is_sensitive: z.boolean(),
  created_at: z.string().describe('ISO-8601 with offset, microseconds'),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  links: z.array(z.object({ id: z.number().int(), link_type: z.enum(LINK_TYPES) })).describe('outgoing'),
  shares: z.array(z.object({ username: z.string(), permission: z.enum(['read', 'write']) })),
  versions: z.array(portableVersionSchema).describe('earlier versions, oldest first (redacted text only)'),
  anchors: z
    .array(
      z.object({
        repo: z.string(),
        path: z.string(),
        symbol: z.string().optional(),
        line_start: z.number().int().optional(),
        line_end: z.number().int().optional(),
        commit: z.string().optional(),
        hash: z.string().optional(),
      }),
    )
    .optional()
    .describe('the code it is anchored to, as an import takes it (an import makes them current again)'),
  branch: z.string().optional().describe('the branch of its project it belongs to until merged'),
});
export const exportResponse = z
  .array(exportedMemoryResponse)
  .describe('format=json; jsonl: one such object per line; markdown: a document grouped by category');

export function presentExportedMemory(memory: ExportedMemory): z.output<typeof exportedMemoryResponse> {
  return {
    id: memory.id,
    content: memory.content,
    category: memory.category,
    tags: [...memory.tags],
    expanded_keywords: memory.expandedKeywords,
    importance: memory.importance,
    project: memory.project,
    visibility: memory.visibility,
    is_sensitive: memory.isSensitive,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
    deleted_at: memory.deletedAt,
    expires_at: memory.expiresAt,
    links: memory.links.map((l) => ({ id: l.id, link_type: l.linkType })),
    shares: memory.shares.map((s) => ({ username: s.username, permission: s.permission })),
    versions: memory.versions.map(presentPortableVersion),
    ...(memory.anchors?.length
      ? {
          anchors: memory.anchors.map((a) => ({
            repo: a.repo,
            path: a.path,
            ...(a.symbol !== null ? { symbol: a.symbol } : {}),
            ...(a.lines !== null ? { line_start: a.lines.start, line_end: a.lines.end } : {}),
            ...(a.commit !== null ? { commit: a.commit } : {}),
            ...(a.hash !== null ? { hash: a.hash } : {}),
          })),
        }
      : {}),
    ...(memory.branch !== undefined ? { branch: memory.branch } : {}),
  };
}
