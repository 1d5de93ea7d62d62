import { type TenantScope } from '@app/persistence';
import type { TenantQuotas } from './tenant-quotas';

export const SCOPES = [
  'memories:read',
  'memories:write',
  'secrets:read',
  'sessions:write',
  'code-events:write',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes a team member's key gets by default (env-bootstrapped users hold all of them). */
export const MEMBER_SCOPES: readonly Scope[] = [
  'memories:read',
  'memories:write',
  'secrets:read',
  'sessions:write',
  // The hooks report the working tree's changed paths (never contents) with the member's key.
  'code-events:write',
];
export const ALL_SCOPES: readonly Scope[] = SCOPES;

/** The verified caller. Comes only from an API key; never from a request body or tool argument. */
export interface Principal extends TenantScope {
  readonly tenantId: string;
  readonly tenantSlug: string;
  readonly userId: string;
  readonly username: string;
  readonly keyId: string;
  readonly scopes: readonly Scope[];
  /** The key's default visibility for new memories; absent: the configured default. */
  readonly defaultVisibility?: 'team' | 'private';
  /** The tenant's quotas (its own, else the configured defaults); absent: unlimited. */
  readonly quotas?: TenantQuotas;
  /** Correlates logs, audit rows and jobs with the HTTP request that caused them. */
  readonly requestId?: string;
}

export function hasScope(principal: Pick<Principal, 'scopes'>, scope: Scope): boolean {
  return principal.scopes.includes(scope);
}

/** The scopes from `required` that the principal lacks, in the order they were asked for. */
export function missingScopes(principal: Pick<Principal, 'scopes'>, required: readonly Scope[]): Scope[] {
  return required.filter((scope) => !hasScope(principal, scope));
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Keeps known scopes only, without duplicates, in the canonical order of SCOPES. */
export function normalizeScopes(values: readonly string[]): Scope[] {
  return SCOPES.filter((scope) => values.includes(scope));
}
