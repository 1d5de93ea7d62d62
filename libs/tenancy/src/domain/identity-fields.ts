/**
 * Identity comes only from the API key. A request that names a user or tenant itself is refused
 * (REST answers 422; MCP tool inputs are strict objects that refuse unknown keys), never silently
 * ignored: a client that believes it can act as someone else should learn at once that it cannot.
 */
export const IDENTITY_FIELDS = ['user_id', 'owner', 'owner_id', 'tenant', 'tenant_id'] as const;

/** Where a request body (an object, or an array of objects) names an identity field, e.g. `user_id` or `3.owner`. */
export function identityFieldIn(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const field = identityFieldIn(item);
      if (field !== undefined && !Array.isArray(item)) return `${index}.${field}`;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  return IDENTITY_FIELDS.find((field) => Object.prototype.hasOwnProperty.call(value, field));
}
