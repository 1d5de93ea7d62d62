import { z } from 'zod';

/** Optional `Idempotency-Key` header: printable ASCII, at most 200 characters. */
export const idempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,200}$/, 'Idempotency-Key must be 1-200 printable ASCII characters')
  .optional();
