import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryError, MemoryErrorCode } from '../../domain/memory.errors';
import { CodeEventRepository } from '../adapters/code-event.repository';
import type { CodeEvent } from '../domain/code-event';

/** One code event of the caller's tenant, with whether the worker applied it yet (404 otherwise). */
@Injectable()
export class GetCodeEventUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly events: CodeEventRepository,
  ) {}

  async execute(principal: Principal, id: number): Promise<CodeEvent> {
    const event = await this.tx.inTenant(principal, (tx) => this.events.find(principal, tx, id), READ_ONLY);
    if (!event) throw new MemoryError(MemoryErrorCode.CodeEventNotFound, `Code event ${id} not found`);
    return event;
  }
}
