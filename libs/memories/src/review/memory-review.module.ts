import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { MemoryWriteModule } from '../write/memory-write.module';
import { MemoryReviewRepository } from './adapters/memory-review.repository';
import { ListProposalsUseCase } from './application/list-proposals.use-case';
import { ReviewProposalUseCase } from './application/review-proposal.use-case';

const USE_CASES = [ListProposalsUseCase, ReviewProposalUseCase];

/**
 * The review wing: the queue of proposals (corrections of memories their authors may not change,
 * and new team memories where the tenant reviews them) and their acceptance or rejection. Proposals
 * are written by the core's writer; the core's read model keeps them out of what recall serves.
 */
@Module({
  imports: [MemoryWriteModule, TenancyModule],
  providers: [MemoryReviewRepository, ...USE_CASES],
  exports: USE_CASES,
})
export class MemoryReviewModule {}
