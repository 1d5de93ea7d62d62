import { READ_TRANSACTION } from './read-transaction';
import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import type { Memory } from '../domain/memory';
import { MemoryError } from '../domain/memory.errors';
import { linksOf, type MemoryLinks } from '../domain/memory-link';

@Injectable()
export class GetMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryReadRepository,
  ) {}

  async execute(principal: Principal, id: number): Promise<Memory> {
    const memory = await this.tx.inTenant(
      principal,
      (tx) => this.memories.findVisibleOne(principal, tx, id, { last: true }),
      READ_TRANSACTION,
    );
    if (!memory) throw MemoryError.notFound(id);
    return memory;
  }

  /** The memory and the links the caller can follow from and to it, in one statement. */
  async withLinks(principal: Principal, id: number): Promise<{ memory: Memory; links: MemoryLinks }> {
    const [found] = await this.tx.inTenant(
      principal,
      (tx) => this.memories.findVisibleWithLinks(principal, tx, [id], { last: true }),
      READ_TRANSACTION,
    );
    if (!found) throw MemoryError.notFound(id);
    return { memory: found.memory, links: linksOf(id, found.links) };
  }
}
