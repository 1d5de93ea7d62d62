import { z } from 'zod';
import { erasureReceiptResponse, memoryIdSchema, storedMemoryResponse } from '@app/memories';
import { sessionIdSchema } from '@app/sessions';
import { userResponseSchema } from '@app/tenancy';
import { idempotencyKeySchema } from '../memories/idempotency-key.schema';

/**
 * Request parts and answer wrappers that several @ApiRoute descriptions share and that no lib
 * contract spells out (the handlers build them inline). Built from the contracts they wrap.
 */
export const memoryIdParams = z.object({ id: memoryIdSchema });
export const memoryShareParams = z.object({
  id: memoryIdSchema,
  user: z.string().describe('Username the memory is shared with'),
});

export const idempotencyHeaders = z.object({
  'idempotency-key': idempotencyKeySchema.describe(
    'Retries with the same key return the first answer instead of storing twice',
  ),
});

export const importResponse = z.array(storedMemoryResponse);

export const authCheckResponse = z.object({
  status: z.literal('ok'),
  user_id: z.string().describe('The username the key belongs to'),
});

export const userRefParams = z.object({ id: z.string().describe('Username or user id') });
export const keyRefParams = z.object({
  id: z.string().max(200).describe('Key id, or the key prefix `GET /api/admin/keys` shows (msk_1a2B3c4D)'),
});
export const jobIdParams = z.object({ id: z.uuid() });

export const deletedUserResponse = z.object({ user: userResponseSchema, erasure: erasureReceiptResponse });

export const sessionIdParams = z.object({ id: sessionIdSchema });
