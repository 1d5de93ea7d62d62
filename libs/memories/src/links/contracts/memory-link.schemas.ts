import { z } from 'zod';
import { memoryDetailResponse, memoryIdSchema, storeMemorySchema } from '../../contracts/memory.schemas';
import { LINK_TYPES } from '../../domain/memory-link';

/** Wire contracts of memory links (claude-memory-mcp's ADR-0007 link routes), for REST and MCP. */

export const linkTypeSchema = z.enum(LINK_TYPES, {
  error: `link_type must be one of: ${LINK_TYPES.join(', ')}`,
});

/** A memory id inside a body: a JSON integer, or the same as a string ("12"). */
export const memoryRefSchema = z.union([z.number().int().positive(), memoryIdSchema], {
  error: 'must be a memory id (a positive integer)',
});

export const createLinkSchema = z.object({
  target_id: memoryRefSchema.describe('The memory the link points to (dst)'),
  link_type: linkTypeSchema,
});
export type CreateLinkBody = z.output<typeof createLinkSchema>;

/** `DELETE /api/memories/{id}/links/{dst}/{type}`. */
export const linkParamsSchema = z.object({
  id: memoryIdSchema,
  dst: memoryIdSchema,
  type: linkTypeSchema,
});
export type LinkParams = z.output<typeof linkParamsSchema>;

export const memoryLinkResponse = z.object({
  id: z.number().int().describe('the link’s id'),
  src_id: z.number().int(),
  dst_id: z.number().int(),
  link_type: linkTypeSchema,
  created_at: z.string().describe('ISO-8601 with offset'),
});
/** What `DELETE …/links/{dst}/{type}` answers (claude-memory-mcp's shape). */
export const unlinkResponse = z.object({
  unlinked: z.object({ src_id: z.number().int(), dst_id: z.number().int(), link_type: linkTypeSchema }),
});

/**
 * One link as a memory lists it: `id` and `type` name the memory at the other end and the link's
 * type (claude-memory-mcp's `links_out`/`links_in`/`links` items), `dir` says which way it points,
 * and the link itself follows.
 */
export const linkedMemoryResponse = memoryLinkResponse.omit({ id: true }).extend({
  id: z.number().int().describe('the memory at the other end'),
  type: linkTypeSchema,
  dir: z.enum(['out', 'in']).describe('out: this memory is src; in: it is dst'),
  link_id: z.number().int(),
});

/** A memory's links whose both ends the caller can see: from it (`links_out`) and to it (`links_in`). */
export const memoryLinksFields = {
  links_out: z.array(linkedMemoryResponse).describe('links from this memory (it is src)'),
  links_in: z.array(linkedMemoryResponse).describe('links to this memory (it is dst)'),
};
export const memoryDetailWithLinksResponse = memoryDetailResponse.extend(memoryLinksFields);

/** A store body as REST and MCP accept it: the memory, and the id of a memory it replaces. */
export const storeMemoryRequestSchema = storeMemorySchema.extend({
  supersedes: memoryRefSchema
    .optional()
    .describe(
      'Id of a memory this one replaces (you must be allowed to change it): a `supersedes` link is made in the same transaction, and recall answers with this memory instead',
    ),
});
