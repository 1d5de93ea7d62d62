import type { TenantScope, Tx } from '@app/persistence';
import type { PinScope } from '../../domain/pin';

/**
 * The `memory_pins` rows (migration 1763700000047). A `user` pin belongs to the caller; a `team`
 * pin has no user. Row-level security checks both again: a personal pin is the caller's own, a team
 * pin needs an admin key and a team-visible memory, and either needs a memory the caller can see.
 */
export class PinRepository {
  /** Pins the memory; false when that pin was already there. */
  async pin(scope: TenantScope, tx: Tx, memoryId: number, pin: PinScope): Promise<boolean> {
    const { rows } = await tx.query(
      pin === 'team'
        ? `INSERT INTO memory_pins (tenant_id, memory_id, scope) VALUES ($1, $2, 'team')
             ON CONFLICT (memory_id, tenant_id) WHERE scope = 'team' DO NOTHING RETURNING id`
        : `INSERT INTO memory_pins (tenant_id, memory_id, scope, user_id) VALUES ($1, $2, 'user', $3)
             ON CONFLICT (memory_id, user_id, tenant_id) WHERE scope = 'user' DO NOTHING RETURNING id`,
      pin === 'team' ? [scope.tenantId, memoryId] : [scope.tenantId, memoryId, scope.userId],
    );
    return rows.length > 0;
  }

  /** Removes the pin; false when there was none. */
  async unpin(scope: TenantScope, tx: Tx, memoryId: number, pin: PinScope): Promise<boolean> {
    const { rows } = await tx.query(
      `DELETE FROM memory_pins
        WHERE tenant_id = $1 AND memory_id = $2 AND scope = $3 AND ($3 = 'team' OR user_id = $4)
        RETURNING id`,
      [scope.tenantId, memoryId, pin, scope.userId],
    );
    return rows.length > 0;
  }
}
