import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryRepository } from '../adapters/memory.repository';
import type { Memory } from '../domain/memory';
import { MemoryError } from '../domain/memory.errors';

@Injectable()
export class GetMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryRepository,
  ) {}

  async execute(principal: Principal, id: number): Promise<Memory> {
    const memory = await this.tx.inTenant(principal, (tx) => this.memories.findVisibleOne(principal, tx, id));
    if (!memory) throw MemoryError.notFound(id);
    return memory;
  }
}
