import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ListProposalsUseCase,
  listProposalsQuerySchema,
  memoryIdSchema,
  presentProposal,
  presentReview,
  proposalListResponse,
  ReviewProposalUseCase,
  reviewBodySchema,
  reviewResponse,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { memoryIdParams } from '../openapi/route-schemas';

const REVIEW_ERRORS = {
  403: 'You may see the proposal but not review it: only the owner of the memory it corrects (or an admin) does; a new team memory, only an admin',
  404: 'No memory with this id is visible to you',
  409: 'The memory is not a proposal waiting for review (`not_a_proposal`)',
  422: 'Validation failed',
};

/**
 * The review queue: corrections teammates proposed for memories they may not change, and new team
 * memories in tenants that review them; accepting puts one in force, rejecting soft-deletes it.
 */
@Controller('memories')
export class MemoryReviewController {
  constructor(
    private readonly listProposals: ListProposalsUseCase,
    private readonly review: ReviewProposalUseCase,
  ) {}

  @Get('proposals')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'listProposals',
    tag: 'memories',
    summary: 'Proposals waiting for review that you can see, newest first, each with the memory it corrects',
    query: listProposalsQuerySchema,
    response: proposalListResponse,
  })
  async proposals(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const { limit } = parseInput(listProposalsQuerySchema, query ?? {}, 400);
    return { proposals: (await this.listProposals.execute(principal, limit)).map(presentProposal) };
  }

  @Post(':id/accept')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'acceptProposal',
    tag: 'memories',
    summary: 'Accept a proposal: recall serves it from now on (a correction in its target’s place); audited',
    params: memoryIdParams,
    body: reviewBodySchema,
    response: reviewResponse,
    errors: REVIEW_ERRORS,
  })
  async accept(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const { reason } = parseInput(reviewBodySchema, body);
    return presentReview(
      await this.review.execute(principal, parseInput(memoryIdSchema, id), 'accept', reason),
    );
  }

  @Post(':id/reject')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'rejectProposal',
    tag: 'memories',
    summary: 'Reject a proposal: it is soft-deleted and never served; audited with the reason given',
    params: memoryIdParams,
    body: reviewBodySchema,
    response: reviewResponse,
    errors: REVIEW_ERRORS,
  })
  async reject(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const { reason } = parseInput(reviewBodySchema, body);
    return presentReview(
      await this.review.execute(principal, parseInput(memoryIdSchema, id), 'reject', reason),
    );
  }
}
