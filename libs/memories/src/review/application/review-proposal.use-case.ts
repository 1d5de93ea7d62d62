import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, hasScope, type Principal } from '@app/tenancy';
import { MemoryError, MemoryErrorCode } from '../../domain/memory.errors';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { MemoryReviewRepository, type ReviewDecision } from '../adapters/memory-review.repository';

export interface ReviewOutcome {
  readonly id: number;
  readonly reviewState: 'accepted' | 'rejected';
  /** The memory the accepted correction now supersedes in recall (null: a new team memory). */
  readonly supersedes: number | null;
}

/**
 * Accepts or rejects a proposal: a teammate's correction of a memory they may not change, or a new
 * team memory in a tenant that reviews them. The owner of the corrected memory (or a `write` share
 * of it) and the tenant's admins review a correction; only admins review a new team memory. An
 * accepted correction is in force from then on (recall serves it in its target's place, with
 * `redirected_from`); a rejected one is soft-deleted. Both are audited (`memory.accept`,
 * `memory.reject`, with the reason given).
 */
@Injectable()
export class ReviewProposalUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly proposals: MemoryReviewRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(
    principal: Principal,
    id: number,
    decision: ReviewDecision,
    reason?: string,
  ): Promise<ReviewOutcome> {
    const supersedes = await this.tx.inTenant(principal, async (tx) => {
      const access = await this.reads.access(principal, tx, id);
      if (!access?.readable) throw MemoryError.notFound(id);
      if (access.reviewState !== 'proposed') {
        throw new MemoryError(
          MemoryErrorCode.NotProposed,
          `Memory ${id} is not a proposal waiting for review`,
        );
      }
      const target = await this.proposals.corrects(principal, tx, id);
      if (hasScope(principal, 'admin')) return target;
      const targetAccess = target === null ? null : await this.reads.access(principal, tx, target);
      if (!targetAccess?.writable) {
        throw new MemoryError(
          MemoryErrorCode.Forbidden,
          target === null
            ? `Memory ${id} is a new team memory waiting for an admin's review`
            : `Only the owner of memory ${target} (or an admin) accepts or rejects a correction of it`,
        );
      }
      return target;
    });
    // The proposer owns the row: its state changes as the system, after the check above (the
    // reviewer's reads see it as their own write).
    await this.tx.asSystem(
      async (tx) => {
        if (!(await this.proposals.settle(tx, principal.tenantId, id, decision))) {
          throw new MemoryError(MemoryErrorCode.NotProposed, `Memory ${id} was reviewed meanwhile`);
        }
        await this.audit.record(principal, tx, {
          action: decision === 'accept' ? 'memory.accept' : 'memory.reject',
          targetType: 'memory',
          targetId: String(id),
          details: { supersedes, ...(reason ? { reason } : {}) },
        });
      },
      { author: principal },
    );
    return { id, reviewState: decision === 'accept' ? 'accepted' : 'rejected', supersedes };
  }
}
