import { READ_TRANSACTION } from './read-transaction';
import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import type { Memory, MemoryFilter } from '../domain/memory';
import { DEFAULT_LIST_LIMIT, MEMORY_LIMITS, type MemoryLimits } from '../write/memory-limits';

export interface ListMemoriesInput extends MemoryFilter {
  readonly limit?: number;
  readonly offset?: number;
}

@Injectable()
export class ListMemoriesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
    @Inject(MEMORY_LIMITS) private readonly limits: MemoryLimits,
  ) {}

  async execute(
    principal: Principal,
    input: ListMemoriesInput,
  ): Promise<{ memories: Memory[]; total: number }> {
    // Clients ask for "everything" with limit=10000; clamp rather than refuse.
    const limit = Math.min(input.limit ?? DEFAULT_LIST_LIMIT, this.limits.maxListLimit);
    const offset = input.offset ?? 0;
    return this.tx.inTenant(
      principal,
      (tx) => this.memories.list(principal, tx, { ...input, limit, offset }),
      READ_TRANSACTION,
    );
  }
}
