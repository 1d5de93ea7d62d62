import type { z } from 'zod';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

/** Validates transport input (REST body, CLI options) and turns failures into one readable 422. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new TenancyError(TenancyErrorCode.InvalidInput, describeIssues(result.error));
  return result.data;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
