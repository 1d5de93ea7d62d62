import { type ApiKeyResponse, type UserResponse } from '@app/tenancy';

/** Left-aligned columns, for humans. Scripts should use --json. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

export function usersTable(users: readonly UserResponse[]): string {
  if (users.length === 0) return 'No users.\n';
  return table(
    ['USERNAME', 'ADMIN', 'DISPLAY NAME', 'ID', 'CREATED'],
    users.map((u) => [u.username, u.is_admin ? 'yes' : 'no', u.display_name ?? '', u.id, u.created_at]),
  );
}

export function keysTable(keys: readonly ApiKeyResponse[]): string {
  if (keys.length === 0) return 'No API keys.\n';
  return table(
    ['ID', 'USER', 'PREFIX', 'STATUS', 'SOURCE', 'SCOPES', 'EXPIRES', 'LAST USED', 'NAME'],
    keys.map((k) => [
      k.id,
      k.username,
      k.prefix,
      k.status,
      k.source,
      k.scopes.join(','),
      k.expires_at ?? 'never',
      k.last_used_at ?? 'never',
      k.name,
    ]),
  );
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
