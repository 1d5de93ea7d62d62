import { z } from 'zod';
import { memoryDetailResponse, memoryIdSchema, storeMemorySchema } from '../../contracts/memory.schemas';
import { LINK_TYPES } from '../domain/memory-link';

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
  id: z.number().int(),
  src_id: z.number().int(),
  dst_id: z.number().int(),
  link_type: linkTypeSchema,
  created_at: z.string().describe('ISO-8601 with offset'),
});
export const unlinkResponse = z.object({ unlinked: memoryLinkResponse });

/** A memory's links whose both ends the caller can see: from it (`links_out`) and to it (`links_in`). */
export const memoryLinksFields = {
  links_out: z.array(memoryLinkResponse).describe('links from this memory (it is src)'),
  links_in: z.array(memoryLinkResponse).describe('links to this memory (it is dst)'),
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
