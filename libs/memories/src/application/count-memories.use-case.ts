import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import type { MemoryFilter } from '../domain/memory';

/** How many live memories the caller owns, optionally within a category, tag or project. */
@Injectable()
export class CountMemoriesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
  ) {}

  async execute(principal: Principal, filter: MemoryFilter = {}): Promise<{ total: number }> {
    const total = await this.tx.inTenant(
      principal,
      (tx) => this.memories.countMatching(principal, tx, filter),
      READ_ONLY,
    );
    return { total };
  }
}
