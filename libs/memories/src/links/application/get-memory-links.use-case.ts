import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryLinkRepository } from '../../write/memory-link.repository';
import { linksOf, type MemoryLinks } from '../../domain/memory-link';

/**
 * A memory's links in both directions, only those whose both ends the caller can see: a memory
 * the caller cannot see has none (its readers answer 404 for the memory itself).
 */
@Injectable()
export class GetMemoryLinksUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly links: MemoryLinkRepository,
  ) {}

  async execute(principal: Principal, memoryId: number): Promise<MemoryLinks> {
    const links = await this.tx.inTenant(principal, (tx) =>
      this.links.findTouching(principal, tx, [memoryId]),
    );
    return linksOf(memoryId, links);
  }
}
