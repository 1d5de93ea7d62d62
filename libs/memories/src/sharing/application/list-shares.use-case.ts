import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { ShareRepository } from '../adapters/share.repository';
import type { MyMemoryShare, MyTagShare, SharedMemory } from '../../domain/share';

/** At most this many memories in one shared-with-me answer (most important first). */
export const SHARED_WITH_ME_DEFAULT = 500;
export const SHARED_WITH_ME_MAX = 5000;

/** Teammates' memories shared with the caller, directly or by tag (`GET /api/memories/shared-with-me`). */
@Injectable()
export class ListSharedWithMeUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly shares: ShareRepository,
  ) {}

  async execute(principal: Principal, input: { limit?: number } = {}): Promise<SharedMemory[]> {
    const limit = Math.min(input.limit ?? SHARED_WITH_ME_DEFAULT, SHARED_WITH_ME_MAX);
    return this.tx.inTenant(principal, (tx) => this.shares.sharedWith(principal, tx, limit), READ_ONLY);
  }
}

/** What the caller shares: memory shares and tag rules (`GET /api/memories/my-shares`). */
@Injectable()
export class ListMySharesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly shares: ShareRepository,
  ) {}

  async execute(principal: Principal): Promise<{ memories: MyMemoryShare[]; tags: MyTagShare[] }> {
    return this.tx.inTenant(principal, (tx) => this.shares.sharesBy(principal, tx), READ_ONLY);
  }
}
