import { z } from 'zod';

/** Shared pieces of the route descriptions: JSON bodies and the `{detail, code}` error shape. */
export const errorBody = z.object({ detail: z.string(), code: z.string() });

export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

export const ok = (schema: z.ZodType, description = 'OK') => ({ description, ...json(schema) });

export const errorResponse = (description: string) => ({ description, ...json(errorBody) });

/** Answers every admin route may give besides its own. */
export const ADMIN_DENIED = {
  401: errorResponse('Missing or invalid API key'),
  403: errorResponse('The key lacks the admin scope'),
  422: errorResponse('Validation failed'),
};
