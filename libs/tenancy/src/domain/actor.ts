import { type TenantScope } from '@app/persistence';
import { hasScope, type Principal } from './principal';
import { TenancyError, TenancyErrorCode } from './tenancy.errors';

/**
 * An operator acting inside one tenant without an API key: the CLI (trusted because it holds
 * database credentials) or the startup bootstrap. Audit rows record it with a null actor.
 */
export interface SystemActor {
  readonly kind: 'system';
  readonly via: 'cli' | 'bootstrap' | 'worker' | 'sign-in';
  readonly tenantId: string;
  readonly tenantSlug: string;
  readonly requestId?: string;
}

/** Who performs an administrative action: a key holder with the admin scope, or a system actor. */
export type Actor = Principal | SystemActor;

/** RLS needs a user id in the transaction; a system actor owns no rows, so it gets the nil UUID. */
export const NO_USER_ID = '00000000-0000-0000-0000-000000000000';

export function isSystemActor(actor: Actor): actor is SystemActor {
  return 'kind' in actor && actor.kind === 'system';
}

export function tenantScopeOf(actor: Actor): TenantScope {
  return isSystemActor(actor)
    ? { tenantId: actor.tenantId, userId: NO_USER_ID }
    : { tenantId: actor.tenantId, userId: actor.userId };
}

/** Admin use cases re-check the scope even though the HTTP guard already did (defence in depth). */
export function assertAdmin(actor: Actor): void {
  if (isSystemActor(actor)) return;
  if (!hasScope(actor, 'admin')) {
    throw new TenancyError(TenancyErrorCode.Forbidden, 'This API key lacks the "admin" scope');
  }
}

/** The user id recorded as `created_by`; null when an operator acted. */
export function actingUserId(actor: Actor): string | null {
  return isSystemActor(actor) ? null : actor.userId;
}
