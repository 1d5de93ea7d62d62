import type { z } from 'zod';
import { identityFieldIn } from '@app/tenancy';

/**
 * A request that failed its contract. 422 for a well-formed but invalid body, 400 for malformed
 * input, 413 and 415 for a streamed body over its limit or of the wrong media type.
 */
export class RequestValidationError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 | 415 | 422,
    readonly code = 'validation_failed',
  ) {
    super(message);
    this.name = 'RequestValidationError';
  }
}

export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      return `${where}${issue.message}`;
    })
    .join('; ');
}

/** Parses input with a zod contract or throws a readable RequestValidationError. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  status: 400 | 422 = 422,
): z.output<S> {
  const identity = identityFieldIn(value);
  if (identity !== undefined) {
    throw new RequestValidationError(
      `${identity}: identity comes from the API key; remove it from the request`,
      422,
    );
  }
  const result = schema.safeParse(withoutNulls(value));
  if (!result.success) throw new RequestValidationError(describeZodError(result.error), status);
  return result.data;
}

/**
 * Optional fields sent as `null` count as absent (claude-memory-mcp's client sends `"category": null`
 * for filters it does not use): top-level null members of a body object, or of each object in an
 * array body, are dropped before validation. A required field sent as null is then reported missing.
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (isPlainObject(item) ? dropNulls(item) : item));
  return isPlainObject(value) ? dropNulls(value) : value;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const dropNulls = (object: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(object).filter(([, v]) => v !== null));
