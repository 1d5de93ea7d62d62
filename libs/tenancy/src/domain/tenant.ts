/** Same rule as the `tenants.slug` CHECK constraint and DEFAULT_TENANT. */
export const TENANT_SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const TENANT_SLUG_RULE =
  'must be 1-63 lower-case letters, digits, "_" or "-", starting with a letter or digit';
