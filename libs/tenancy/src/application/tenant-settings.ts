import { type TenantScope } from '@app/persistence';
import { assertAdmin, tenantScopeOf, type Actor } from '../domain/actor';

/**
 * The scope an admin action on the tenant row runs with. Row-level security lets only admins
 * (`app.admin`) change their tenant's settings; a system actor (the CLI) holds no key scopes, so it
 * is given the admin flag here, after the same admin check every admin use case makes.
 */
export function tenantAdminScope(actor: Actor): TenantScope {
  assertAdmin(actor);
  return { ...tenantScopeOf(actor), scopes: ['admin'] };
}
