import { z } from 'zod';
import { apiKeyStatus, type ApiKeySummary, type CreatedApiKey, type RotatedApiKey } from '../domain/api-key';
import { SCOPES } from '../domain/principal';
import type { TenantSettings } from '../domain/tenant';
import type { User } from '../domain/user';

/** Response shapes of the admin routes (snake_case JSON), also used by the CLI's --json output. */
export const userResponseSchema = z.object({
  id: z.uuid(),
  username: z.string(),
  display_name: z.string().nullable(),
  is_admin: z.boolean(),
  disabled_at: z.string().nullable(),
  created_at: z.string(),
});
export type UserResponse = z.infer<typeof userResponseSchema>;

export const apiKeyResponseSchema = z.object({
  id: z.uuid(),
  user_id: z.uuid(),
  username: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  source: z
    .enum(['managed', 'env', 'oidc'])
    .describe(
      'managed: created by an admin; env: from API_KEYS; oidc: held by an identity provider sign-in (never a usable key)',
    ),
  status: z.enum(['active', 'revoked', 'expired']),
  expires_at: z.string().nullable(),
  default_visibility: z.enum(['team', 'private']).nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  created_at: z.string(),
  replaced_by: z
    .uuid()
    .nullable()
    .describe('The key that replaced this one in a rotation; this one works until expires_at'),
});
export type ApiKeyResponse = z.infer<typeof apiKeyResponseSchema>;

const nextCursor = z
  .string()
  .nullable()
  .describe('Pass as `cursor` for the next page; null on the last page');

export const usersPageResponseSchema = z.object({
  users: z.array(userResponseSchema),
  next_cursor: nextCursor,
});
export const keysPageResponseSchema = z.object({
  keys: z.array(apiKeyResponseSchema),
  next_cursor: nextCursor,
});

export const createdApiKeyResponseSchema = apiKeyResponseSchema.extend({
  key: z.string().describe('The API key itself. Shown only in this response; store it now.'),
});
export type CreatedApiKeyResponse = z.infer<typeof createdApiKeyResponseSchema>;

export function toUserResponse(user: User): UserResponse {
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    is_admin: user.isAdmin,
    disabled_at: iso(user.disabledAt),
    created_at: user.createdAt.toISOString(),
  };
}

export function toApiKeyResponse(key: ApiKeySummary, now: Date = new Date()): ApiKeyResponse {
  return {
    id: key.id,
    user_id: key.userId,
    username: key.username,
    name: key.name,
    prefix: key.prefix,
    scopes: [...key.scopes],
    source: key.source,
    status: apiKeyStatus(key, now),
    expires_at: iso(key.expiresAt),
    default_visibility: key.defaultVisibility,
    revoked_at: iso(key.revokedAt),
    last_used_at: iso(key.lastUsedAt),
    created_at: key.createdAt.toISOString(),
    replaced_by: key.replacedBy,
  };
}

export const rotatedApiKeyResponseSchema = createdApiKeyResponseSchema.extend({
  previous: apiKeyResponseSchema.describe(
    'The old key: it keeps working until its expires_at (the grace period)',
  ),
});
export type RotatedApiKeyResponse = z.infer<typeof rotatedApiKeyResponseSchema>;

export function toRotatedApiKeyResponse(
  rotated: RotatedApiKey,
  now: Date = new Date(),
): RotatedApiKeyResponse {
  return { ...toCreatedApiKeyResponse(rotated, now), previous: toApiKeyResponse(rotated.previous, now) };
}

export function toCreatedApiKeyResponse(
  created: CreatedApiKey,
  now: Date = new Date(),
): CreatedApiKeyResponse {
  return { ...toApiKeyResponse(created.key, now), key: created.plaintext };
}

function iso(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

export const tenantSettingsResponseSchema = z.object({
  team_session_visibility: z
    .boolean()
    .describe("teammates read each other's sessions and session events (never change them)"),
  admin_private_access: z
    .boolean()
    .describe("admin keys may read members' private memories, with an audited reason per request"),
  review_team_memories: z
    .boolean()
    .describe("a member's new team memory waits for an admin's review before recall serves it"),
  proposal_auto_accept_hours: z
    .number()
    .int()
    .nullable()
    .describe('a proposal nobody rejected is accepted after this many hours; null: never'),
  capture_branch_scope: z
    .boolean()
    .describe('session capture on a feature branch stores memories scoped to that branch until it is merged'),
});
export type TenantSettingsResponse = z.infer<typeof tenantSettingsResponseSchema>;

export function toTenantSettingsResponse(settings: TenantSettings): TenantSettingsResponse {
  return {
    team_session_visibility: settings.teamSessionVisibility,
    admin_private_access: settings.adminPrivateAccess,
    review_team_memories: settings.reviewTeamMemories,
    proposal_auto_accept_hours: settings.proposalAutoAcceptHours,
    capture_branch_scope: settings.captureBranchScope,
  };
}
