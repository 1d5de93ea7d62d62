import { z } from 'zod';
import { memoryListItemResponse } from '../../contracts/memory.schemas';
import { presentListItem } from '../../contracts/memory.mapping';
import type { Proposal } from '../application/list-proposals.use-case';
import type { ReviewOutcome } from '../application/review-proposal.use-case';

/** `GET /api/memories/proposals?limit=` and `memory_proposals`. */
export const listProposalsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** `POST /api/memories/:id/reject` (and accept): an optional reason, kept in the audit row. */
export const reviewBodySchema = z
  .strictObject({ reason: z.string().trim().min(1).max(500).optional() })
  .optional()
  .transform((body) => body ?? {});

export const proposalResponse = memoryListItemResponse.extend({
  supersedes: z
    .number()
    .int()
    .nullable()
    .describe(
      'the memory it would correct (recall serves that one until this is accepted); null: a new team memory',
    ),
});
export const proposalListResponse = z.object({
  proposals: z.array(proposalResponse).describe('newest first'),
});

export const reviewResponse = z.object({
  id: z.number().int(),
  review_state: z.enum(['accepted', 'rejected']),
  supersedes: z.number().int().nullable(),
});

export function presentProposal(proposal: Proposal) {
  return { ...presentListItem(proposal.memory), supersedes: proposal.supersedes };
}

export function presentReview(outcome: ReviewOutcome) {
  return { id: outcome.id, review_state: outcome.reviewState, supersedes: outcome.supersedes };
}
