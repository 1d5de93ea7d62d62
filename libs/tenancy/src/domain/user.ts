/** Same rule as the `users.username` CHECK constraint and the API_KEYS variable. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const USERNAME_RULE =
  'must be 1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';

export interface User {
  readonly id: string;
  readonly tenantId: string;
  readonly username: string;
  readonly displayName: string | null;
  readonly isAdmin: boolean;
  readonly disabledAt: Date | null;
  readonly createdAt: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
