import { z } from 'zod';

/**
 * The JSON a variable holds, or `z.NEVER` after adding an issue that shows the expected form
 * (`example`) when it is not JSON (the value itself is never echoed).
 */
export function readJson(raw: string, ctx: z.RefinementCtx, example: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: `must be ${example}` });
    return z.NEVER;
  }
}
