import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, hasScope, type Principal } from '@app/tenancy';
import { MemoryError } from '../../domain/memory.errors';
import type { PinScope } from '../../domain/pin';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { PinRepository } from '../adapters/pin.repository';
import { PinError } from '../domain/pin.errors';

export interface PinResult {
  readonly id: number;
  readonly scope: PinScope;
  /** The pin is there now. */
  readonly pinned: boolean;
  /** This call changed it (false when it was already so). */
  readonly changed: boolean;
}

/**
 * Pins a memory the caller can see (`POST /api/memories/:id/pin`, MCP `memory_pin`): `user` for the
 * caller's own startup context, `team` (admin key, team-visible memory) for everyone's. Repeatable.
 * The memory row is not touched. 404 when the caller cannot see the memory; 403 for a team pin
 * without the admin scope; 409 for a team pin of a private memory.
 */
@Injectable()
export class PinMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly pins: PinRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: number, scope: PinScope): Promise<PinResult> {
    return this.tx.inTenant(principal, async (tx) => {
      const memory = await this.memories.findVisibleOne(principal, tx, id);
      if (!memory) throw MemoryError.notFound(id);
      if (scope === 'team' && !hasScope(principal, 'admin')) throw PinError.teamPinNeedsAdmin();
      if (scope === 'team' && memory.visibility !== 'team') throw PinError.teamPinNeedsTeamMemory(id);
      const changed = await this.pins.pin(principal, tx, id, scope);
      if (changed) {
        await this.audit.record(principal, tx, {
          action: 'memory.pin',
          targetType: 'memory',
          targetId: id,
          details: { scope },
        });
      }
      return { id, scope, pinned: true, changed };
    });
  }
}
