import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { ownerScopeFor } from '../../read-model/ownership';
import { ShareRepository } from '../adapters/share.repository';

/**
 * Stops sharing a memory with a user (`DELETE /api/memories/:id/share/:user`). Repeatable: a user
 * it was not shared with answers the same. Only its owner or an admin may unshare it.
 */
@Injectable()
export class UnshareMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly shares: ShareRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(
    principal: Principal,
    id: number,
    username: string,
  ): Promise<{ unshared: number; from: string }> {
    return this.tx.inTenant(principal, async (tx) => {
      const owner = await ownerScopeFor(this.memories, principal, tx, id, 'manage');
      const userId = await this.shares.findUserId(principal, tx, username);
      if (userId !== null && (await this.shares.deleteMemoryShare(owner, tx, id, userId))) {
        await this.audit.record(principal, tx, {
          action: 'memory.unshare',
          targetType: 'memory',
          targetId: id,
          details: { from: username },
        });
      }
      return { unshared: id, from: username };
    });
  }
}
