import type { z } from 'zod';
import { IDENTITY_FIELDS } from '../domain/identity-fields';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

/**
 * Validates transport input (REST body, CLI options) and turns failures into one readable 422. An
 * identity field the contract does not declare (`tenant_id` on a user to create) is refused rather
 * than ignored: the caller means another tenant or user, and would otherwise act on its own.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const stray = undeclaredIdentityField(schema, input);
  if (stray !== undefined) {
    throw new TenancyError(
      TenancyErrorCode.InvalidInput,
      `${stray}: identity comes from the API key; remove it from the request`,
    );
  }
  const result = schema.safeParse(input);
  if (!result.success) throw new TenancyError(TenancyErrorCode.InvalidInput, describeIssues(result.error));
  return result.data;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

function undeclaredIdentityField(schema: z.ZodType, input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  const declared = new Set(shape && typeof shape === 'object' ? Object.keys(shape) : []);
  return IDENTITY_FIELDS.find((field) => Object.hasOwn(input, field) && !declared.has(field));
}
