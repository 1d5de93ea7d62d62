import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, hasScope, type Principal } from '@app/tenancy';
import { MemoryError } from '../../domain/memory.errors';
import type { PinScope } from '../../domain/pin';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { PinRepository } from '../adapters/pin.repository';
import { PinError } from '../domain/pin.errors';
import type { PinResult } from './pin-memory.use-case';

/**
 * Removes a pin (`DELETE /api/memories/:id/pin?scope=`, MCP `memory_unpin`): the caller's own, or
 * with an admin key the team pin. Repeatable: a memory without that pin answers the same. 404 when
 * the caller cannot see the memory; 403 for the team pin without the admin scope.
 */
@Injectable()
export class UnpinMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly pins: PinRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: number, scope: PinScope): Promise<PinResult> {
    return this.tx.inTenant(principal, async (tx) => {
      const access = await this.memories.access(principal, tx, id);
      if (!access?.readable) throw MemoryError.notFound(id);
      if (scope === 'team' && !hasScope(principal, 'admin')) throw PinError.teamPinNeedsAdmin();
      const changed = await this.pins.unpin(principal, tx, id, scope);
      if (changed) {
        await this.audit.record(principal, tx, {
          action: 'memory.unpin',
          targetType: 'memory',
          targetId: id,
          details: { scope },
        });
      }
      return { id, scope, pinned: false, changed };
    });
  }
}
