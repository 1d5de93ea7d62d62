import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { WRITE_TRANSACTION } from '../../write/write-transaction';
import type { MemoryLink, NewMemoryLink } from '../../domain/memory-link';
import { MemoryLinkWriter } from '../../write/memory-link-writer';

/** Removes one link from memory `srcId`; answers the removed link. */
@Injectable()
export class DeleteMemoryLinkUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly writer: MemoryLinkWriter,
  ) {}

  execute(principal: Principal, link: NewMemoryLink): Promise<MemoryLink> {
    return this.tx.inTenant(principal, (tx) => this.writer.unlink(principal, tx, link), WRITE_TRANSACTION);
  }
}
