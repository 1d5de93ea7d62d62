/** Same rule as the `tenants.slug` CHECK constraint and DEFAULT_TENANT. */
export const TENANT_SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const TENANT_SLUG_RULE =
  'must be 1-63 lower-case letters, digits, "_" or "-", starting with a letter or digit';

/** Per-tenant switches an admin sets (`PATCH /api/admin/settings`, `cli tenants settings`). */
export interface TenantSettings {
  /** Teammates read each other's sessions and session events (never change them). Off by default. */
  readonly teamSessionVisibility: boolean;
  /**
   * Admin keys may read and change the members' private memories, each request with a reason that
   * is audited. Off by default: admins manage users, keys, quotas, erasure and exports without it.
   */
  readonly adminPrivateAccess: boolean;
  /** A member's new team memory waits for an admin's review before anything serves it. Off by default. */
  readonly reviewTeamMemories: boolean;
  /** A proposal nobody rejected is accepted after this many hours; null (default): never. */
  readonly proposalAutoAcceptHours: number | null;
  /** Session capture on a branch other than the mainline stores branch-scoped memories. On by default. */
  readonly captureBranchScope: boolean;
}

export type TenantSettingsPatch = Partial<TenantSettings>;
