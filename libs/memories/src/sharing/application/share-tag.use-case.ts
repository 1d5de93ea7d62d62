import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { ShareRepository } from '../adapters/share.repository';
import type { SharePermission } from '../../domain/share';
import { recipientId } from './share-target';

/**
 * A live rule (`POST /api/memories/share-tag`): every memory of the caller's carrying `tag`, now
 * and later, is shared with the user. Repeating it changes the permission.
 */
@Injectable()
export class ShareTagUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly shares: ShareRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(
    principal: Principal,
    input: { tag: string; sharedWith: string; permission: SharePermission },
  ): Promise<{ shared_tag: string; with: string; permission: SharePermission }> {
    return this.tx.inTenant(principal, async (tx) => {
      const userId = await recipientId(this.shares, principal, tx, principal, input.sharedWith);
      await this.shares.upsertTagShare(principal, tx, {
        tag: input.tag,
        userId,
        permission: input.permission,
      });
      await this.audit.record(principal, tx, {
        action: 'memory.share_tag',
        targetType: 'tag',
        targetId: input.tag,
        details: { with: input.sharedWith, permission: input.permission },
      });
      return { shared_tag: input.tag, with: input.sharedWith, permission: input.permission };
    });
  }
}
