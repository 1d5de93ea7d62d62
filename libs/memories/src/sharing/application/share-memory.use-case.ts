import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { ownerScopeFor } from '../../read-model/ownership';
import { MemoryError } from '../../domain/memory.errors';
import { ShareRepository } from '../adapters/share.repository';
import type { SharePermission } from '../../domain/share';
import { recipientId } from './share-target';

/**
 * Shares one live memory with a user of the tenant (`POST /api/memories/:id/share`); repeating it
 * changes the permission. Only its owner or an admin may share it.
 */
@Injectable()
export class ShareMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    private readonly shares: ShareRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(
    principal: Principal,
    id: number,
    input: { sharedWith: string; permission: SharePermission },
  ): Promise<{ shared: number; with: string; permission: SharePermission }> {
    return this.tx.inTenant(principal, async (tx) => {
      const owner = await ownerScopeFor(this.memories, principal, tx, id, 'manage');
      if (!(await this.memories.findLive(owner, tx, id))) throw MemoryError.notFound(id);
      const userId = await recipientId(this.shares, principal, tx, owner, input.sharedWith);
      await this.shares.upsertMemoryShare(owner, tx, { memoryId: id, userId, permission: input.permission });
      await this.audit.record(principal, tx, {
        action: 'memory.share',
        targetType: 'memory',
        targetId: id,
        details: { with: input.sharedWith, permission: input.permission },
      });
      return { shared: id, with: input.sharedWith, permission: input.permission };
    });
  }
}
