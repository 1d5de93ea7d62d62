import { classifyApiKey, displayPrefixOf, hashApiKey } from './api-key-format';
import { ALL_SCOPES, MEMBER_SCOPES, type Scope } from './principal';
import { TenancyError, TenancyErrorCode } from './tenancy.errors';
import { USERNAME_PATTERN, USERNAME_RULE } from './user';

/** The auth part of the environment (AppConfig['auth']), as the bootstrap reads it. */
export interface EnvAuthSettings {
  readonly defaultTenant: string;
  readonly apiKeys: Readonly<Record<string, string>>;
  readonly apiKey?: string;
  readonly adminApiKey?: string;
}

export type EnvKeyOrigin = 'API_KEYS' | 'API_KEY' | 'ADMIN_API_KEY';

export interface PlannedEnvKey {
  readonly username: string;
  readonly origin: EnvKeyOrigin;
  readonly hash: Buffer;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
}

export interface PlannedEnvUser {
  readonly username: string;
  readonly isAdmin: boolean;
}

export interface EnvKeyPlan {
  readonly users: readonly PlannedEnvUser[];
  readonly keys: readonly PlannedEnvKey[];
}

export const DEFAULT_ENV_USERNAME = 'default';
export const ADMIN_USERNAME = 'admin';

/**
 * Turns the env settings into the users and keys that must exist. Refuses configurations that
 * cannot work (a key shared by two users, a malformed `msk_` key) so startup fails loudly
 * instead of serving a key that never authenticates.
 */
export function planEnvKeys(settings: EnvAuthSettings): EnvKeyPlan {
  const entries: { username: string; key: string; origin: EnvKeyOrigin; scopes: readonly Scope[] }[] = [];
  for (const [username, key] of Object.entries(settings.apiKeys)) {
    entries.push({ username, key, origin: 'API_KEYS', scopes: MEMBER_SCOPES });
  }
  if (settings.apiKey) {
    entries.push({
      username: DEFAULT_ENV_USERNAME,
      key: settings.apiKey,
      origin: 'API_KEY',
      scopes: MEMBER_SCOPES,
    });
  }
  if (settings.adminApiKey) {
    entries.push({
      username: ADMIN_USERNAME,
      key: settings.adminApiKey,
      origin: 'ADMIN_API_KEY',
      scopes: ALL_SCOPES,
    });
  }

  const owners = new Map<string, string>();
  const keys: PlannedEnvKey[] = [];
  const admins = new Map<string, boolean>();
  for (const entry of entries) {
    if (!USERNAME_PATTERN.test(entry.username)) {
      throw invalid(`${entry.origin}: user name "${entry.username}" ${USERNAME_RULE}`);
    }
    if (classifyApiKey(entry.key) === 'invalid') {
      throw invalid(
        `${entry.origin}: the key for "${entry.username}" starts with "msk_" but is not a valid generated key ` +
          '(keys with that prefix need their checksum); use a key from "keys create" or one without the prefix',
      );
    }
    const owner = owners.get(entry.key);
    if (owner !== undefined) {
      throw invalid(`${entry.origin}: the same key is configured for "${owner}" and "${entry.username}"`);
    }
    owners.set(entry.key, entry.username);
    admins.set(entry.username, (admins.get(entry.username) ?? false) || entry.origin === 'ADMIN_API_KEY');
    keys.push({
      username: entry.username,
      origin: entry.origin,
      hash: hashApiKey(entry.key),
      prefix: displayPrefixOf(entry.key),
      scopes: entry.scopes,
    });
  }

  // Sorted so that concurrent bootstraps touch rows in the same order.
  const users = [...admins.entries()]
    .map(([username, isAdmin]) => ({ username, isAdmin }))
    .sort((a, b) => a.username.localeCompare(b.username));
  return { users, keys };
}

function invalid(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.InvalidInput, message);
}
