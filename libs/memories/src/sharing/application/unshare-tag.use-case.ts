import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { ShareRepository } from '../adapters/share.repository';

/** Removes one of the caller's tag rules (`DELETE /api/memories/share-tag`); repeatable. */
@Injectable()
export class UnshareTagUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly shares: ShareRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(
    principal: Principal,
    input: { tag: string; sharedWith: string },
  ): Promise<{ unshared_tag: string; from: string }> {
    return this.tx.inTenant(principal, async (tx) => {
      const userId = await this.shares.findUserId(principal, tx, input.sharedWith);
      if (userId !== null && (await this.shares.deleteTagShare(principal, tx, input.tag, userId))) {
        await this.audit.record(principal, tx, {
          action: 'memory.unshare_tag',
          targetType: 'tag',
          targetId: input.tag,
          details: { from: input.sharedWith },
        });
      }
      return { unshared_tag: input.tag, from: input.sharedWith };
    });
  }
}
