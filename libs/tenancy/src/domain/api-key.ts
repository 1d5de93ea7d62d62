import type { Scope } from './principal';
import type { ApiKeyFormat } from './api-key-format';

/** last_used_at is a "roughly when" field: refreshing it at most once a minute avoids a write per request. */
export const LAST_USED_RESOLUTION_SECONDS = 60;

export type ApiKeySource = 'managed' | 'env' | 'oidc';
export type ApiKeyStatus = 'active' | 'revoked' | 'expired';
/** `admin`: revoked by an administrator (sticks); `env_removed`: no longer in the env config (re-adding restores it). */
export type RevocationReason = 'admin' | 'env_removed';

/** A key as admins see it: never the hash or the plaintext. */
export interface ApiKeySummary {
  readonly id: string;
  readonly userId: string;
  readonly username: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly source: ApiKeySource;
  readonly expiresAt: Date | null;
  /** Visibility of memories stored with this key when the request names none (null: the configured default). */
  readonly defaultVisibility: 'team' | 'private' | null;
  readonly revokedAt: Date | null;
  readonly lastUsedAt: Date | null;
  readonly createdAt: Date;
  /** The key that replaced this one in a rotation; this one then works until its expiry. */
  readonly replacedBy: string | null;
}

export interface CreatedApiKey {
  readonly key: ApiKeySummary;
  /** Shown once; only its hash is stored. */
  readonly plaintext: string;
}

export interface RotatedApiKey extends CreatedApiKey {
  /** The old key: `replacedBy` names the new one; it expires at the end of the grace period. */
  readonly previous: ApiKeySummary;
}

export function apiKeyStatus(key: Pick<ApiKeySummary, 'revokedAt' | 'expiresAt'>, now: Date): ApiKeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** What authentication needs to know about the key a request presented. */
export interface KeyCredentials {
  readonly source: ApiKeySource;
  readonly revoked: boolean;
  readonly expired: boolean;
  readonly userDisabled: boolean;
}

export type KeyRejection = 'revoked' | 'expired' | 'user_disabled' | 'unknown';

export const KEY_REJECTION_MESSAGES: Readonly<Record<KeyRejection, string>> = {
  unknown: 'Invalid API key',
  revoked: 'API key has been revoked',
  expired: 'API key has expired',
  user_disabled: 'The user of this API key is disabled',
};

/** Why a stored key may not authenticate, or null when it may. */
export function keyRejection(key: KeyCredentials, format: ApiKeyFormat): KeyRejection | null {
  // Opaque (non msk_) keys exist only for env bootstrap; anything else stored that way is refused.
  if (format !== 'managed' && key.source !== 'env') return 'unknown';
  if (format === 'invalid') return 'unknown';
  // A sign-in's key row has no usable key: only its identity's tokens authenticate as it.
  if (key.source === 'oidc') return 'unknown';
  return credentialRejection(key);
}

/** Why a key row (an API key, or the one an identity provider's sign-in holds) is refused now, or null. */
export function credentialRejection(key: KeyCredentials): Exclude<KeyRejection, 'unknown'> | null {
  if (key.revoked) return 'revoked';
  if (key.expired) return 'expired';
  if (key.userDisabled) return 'user_disabled';
  return null;
}
