import { z } from 'zod';
import { MAX_TAG_LENGTH, visibilitySchema } from '../../contracts/memory.schemas';

/**
 * Sharing contracts (claude-memory-mcp's routes and shapes, which its client calls): a memory or
 * every memory of the caller's with a tag, shared with one user of the tenant, `read` or `write`.
 */

export const sharePermissionSchema = z.enum(['read', 'write'], {
  error: 'permission must be "read" or "write"',
});

const usernameSchema = z
  .string({ error: 'shared_with is required: the username to share with' })
  .trim()
  .min(1, 'shared_with must not be empty')
  .max(64, 'shared_with is at most 64 characters');

const tagSchema = z
  .string({ error: 'tag is required' })
  .trim()
  .min(1, 'tag must not be empty')
  .max(MAX_TAG_LENGTH, `tag is at most ${MAX_TAG_LENGTH} characters`)
  .refine((t) => !t.includes(','), 'tag must not contain commas');

export const shareMemorySchema = z.object({
  shared_with: usernameSchema,
  permission: sharePermissionSchema.default('read'),
});
export type ShareMemoryBody = z.output<typeof shareMemorySchema>;

export const shareTagSchema = z.object({
  tag: tagSchema,
  shared_with: usernameSchema,
  permission: sharePermissionSchema.default('read'),
});
export type ShareTagBody = z.output<typeof shareTagSchema>;

export const unshareTagSchema = z.object({ tag: tagSchema, shared_with: usernameSchema });
export type UnshareTagBody = z.output<typeof unshareTagSchema>;

export const shareUserParamSchema = usernameSchema;

export const sharedWithMeQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d{1,5}$/, 'limit must be a non-negative integer')
    .transform(Number)
    .optional(),
});

// Response shapes.
export const shareMemoryResponse = z.object({
  shared: z.number().int(),
  with: z.string(),
  permission: sharePermissionSchema,
});
export const unshareMemoryResponse = z.object({ unshared: z.number().int(), from: z.string() });
export const shareTagResponse = z.object({
  shared_tag: z.string(),
  with: z.string(),
  permission: sharePermissionSchema,
});
export const unshareTagResponse = z.object({ unshared_tag: z.string(), from: z.string() });
export const sharedMemoryResponse = z.object({
  id: z.number().int(),
  content: z.string(),
  category: z.string(),
  tags: z.string().describe('comma-separated'),
  importance: z.number(),
  visibility: visibilitySchema,
  shared_by: z.string().describe('username of the owner who shared it'),
  permission: sharePermissionSchema.describe('the strongest share the caller holds (direct or by tag)'),
  created_at: z.string(),
  updated_at: z.string(),
});
export const sharedWithMeResponse = z.object({ memories: z.array(sharedMemoryResponse) });
export const myMemoryShareResponse = z.object({
  memory_id: z.number().int(),
  shared_with: z.string(),
  permission: sharePermissionSchema,
  preview: z.string().describe('the first 80 characters (redacted text for a sensitive memory)'),
  created_at: z.string(),
});
export const myTagShareResponse = z.object({
  tag: z.string(),
  shared_with: z.string(),
  permission: sharePermissionSchema,
  created_at: z.string(),
});
export const mySharesResponse = z.object({
  memory_shares: z.array(myMemoryShareResponse),
  tag_shares: z.array(myTagShareResponse),
});
