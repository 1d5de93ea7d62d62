import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { WRITE_TRANSACTION } from '../../write/write-transaction';
import type { MemoryLink, NewMemoryLink } from '../../domain/memory-link';
import { MemoryLinkWriter } from '../../write/memory-link-writer';

/** Links memory `srcId` to `dstId`; an existing link of the same type is a conflict. */
@Injectable()
export class CreateMemoryLinkUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly writer: MemoryLinkWriter,
  ) {}

  execute(principal: Principal, link: NewMemoryLink): Promise<MemoryLink> {
    return this.tx.inTenant(
      principal,
      (tx) => this.writer.link(principal, tx, link, { ifExists: 'conflict', target: 'read' }),
      WRITE_TRANSACTION,
    );
  }
}
