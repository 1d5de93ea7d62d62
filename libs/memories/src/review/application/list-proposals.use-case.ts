import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import type { Memory } from '../../domain/memory';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { MemoryReviewRepository } from '../adapters/memory-review.repository';

export interface Proposal {
  readonly memory: Memory;
  /** The memory it would correct; null for a new team memory waiting for review. */
  readonly supersedes: number | null;
}

/** The review queue: proposals the caller can see, newest first (the team sees every team proposal). */
@Injectable()
export class ListProposalsUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly proposals: MemoryReviewRepository,
  ) {}

  async execute(principal: Principal, limit: number): Promise<Proposal[]> {
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const pending = await this.proposals.pending(principal, tx, limit);
        const rows = new Map(
          (
            await this.reads.findVisible(
              principal,
              tx,
              pending.map((p) => p.id),
            )
          ).map((m) => [m.id, m]),
        );
        return pending.flatMap((p) => {
          const memory = rows.get(p.id);
          return memory ? [{ memory, supersedes: p.supersedes }] : [];
        });
      },
      READ_ONLY,
    );
  }
}
