import { Injectable } from '@nestjs/common';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  CreateMemoryLinkUseCase,
  CreateMemoryUseCase,
  DeleteMemoryLinkUseCase,
  linkTypeSchema,
  ListProposalsUseCase,
  presentProposal,
  presentReview,
  proposalListResponse,
  ReviewProposalUseCase,
  reviewResponse,
  memoryLinkResponse,
  presentLink,
  presentStored,
  presentUnlinked,
  storedMemoryResponse,
  toNewLink,
  toNewMemory,
  unlinkResponse,
} from '@app/memories';
import { memoryIdArg, storeFields, supersedesArg } from './mcp-schemas';
import { defineTool, READ_ONLY, type McpToolDefinition } from './mcp-tool';

const linkArgs = {
  id: memoryIdArg.describe('The memory the link starts from (src); you must be allowed to change it'),
  target_id: memoryIdArg.describe('The memory the link points to (dst)'),
  link_type: linkTypeSchema.describe(
    'supersedes: id is the newer version of target_id (recall then answers with id); part-of: id is a detail of target_id; see-also: related; resolved-by: the problem in id is solved by target_id',
  ),
};

/** Corrections and typed links between memories. */
@Injectable()
export class MemoryLinkTools {
  readonly tools: McpToolDefinition[];

  constructor(
    private readonly createMemory: CreateMemoryUseCase,
    private readonly createLink: CreateMemoryLinkUseCase,
    private readonly deleteLink: DeleteMemoryLinkUseCase,
    private readonly listProposals: ListProposalsUseCase,
    private readonly review: ReviewProposalUseCase,
  ) {
    this.tools = [this.correct(), this.link(), this.unlink(), this.proposals(), this.reviewTool()];
  }

  private proposals() {
    return defineTool({
      name: 'memory_proposals',
      title: 'List proposals waiting for review',
      description:
        'The review queue: corrections teammates proposed for memories they may not change (each with `supersedes`, the memory it would correct) and new team memories in a tenant that reviews them (`supersedes` null), newest first. Recall does not serve them until accepted with memory_review. Returns {proposals: [...]}.',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject({ limit: z.number().int().min(1).max(200).default(50) }),
      output: proposalListResponse,
      run: async (principal, args) => {
        const proposals = (await this.listProposals.execute(principal, args.limit)).map(presentProposal);
        const lines = proposals.map(
          (p) =>
            `#${p.id} by ${p.owner}${p.supersedes === null ? ' (new team memory)' : ` corrects #${p.supersedes}`}`,
        );
        return {
          text:
            lines.length === 0 ? 'No proposals wait for review.' : `Waiting for review:\n${lines.join('\n')}`,
          data: { proposals },
        };
      },
    });
  }

  private reviewTool() {
    return defineTool({
      name: 'memory_review',
      title: 'Accept or reject a proposal',
      description:
        'Accept or reject a proposal from memory_proposals. Accepting puts it in force: a correction is then what recall answers in place of the memory it corrects (with redirected_from). Rejecting soft-deletes it. Only the owner of the corrected memory (or an admin) reviews a correction; only an admin reviews a new team memory. Both are audited with the reason given. Returns {id, review_state, supersedes}.',
      scope: 'memories:write',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      input: z.strictObject({
        id: memoryIdArg,
        decision: z.enum(['accept', 'reject']),
        reason: z.string().trim().min(1).max(500).optional(),
      }),
      output: reviewResponse,
      run: async (principal, args) => {
        const outcome = presentReview(
          await this.review.execute(principal, args.id, args.decision, args.reason),
        );
        return {
          text:
            outcome.review_state === 'accepted'
              ? `Accepted #${outcome.id}${outcome.supersedes === null ? '' : `; recall now answers with it in place of #${outcome.supersedes}`}.`
              : `Rejected #${outcome.id}; it is deleted and never served.`,
          data: outcome,
        };
      },
    });
  }

  private correct() {
    return defineTool({
      name: 'memory_correct',
      title: 'Correct a memory',
      description:
        'Use when a stored memory is outdated or wrong and the truth is now different ("no, we do X now", "that changed last week", a decision reversed): stores the corrected memory and marks it as superseding the old one, so memory_recall answers with the correction (the old one stays as history, visible with include_superseded). Pass the old memory’s id as `supersedes` (or as `id`, an alias) and the corrected knowledge as `content` (self-contained, not a diff). When the old memory is a teammate’s team memory you may not change, the correction is stored as a proposal (review_state "proposed"): the team sees it (memory_proposals), recall keeps serving the old memory until its owner or an admin accepts it (memory_review). To fix a typo in your own memory use memory_update instead. Returns {id, category, importance, supersedes} (plus review_state when it waits for review).',
      scope: 'memories:write',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      input: z.strictObject({
        supersedes: supersedesArg.optional(),
        id: memoryIdArg.optional().describe('Alias of `supersedes`: the id of the memory to correct'),
        ...storeFields,
      }),
      output: storedMemoryResponse.extend({ supersedes: z.number().int() }),
      run: async (principal, args) => {
        const { id, ...fields } = args;
        const supersedes = fields.supersedes ?? id;
        if (supersedes === undefined || (id !== undefined && id !== supersedes)) {
          throw new McpError(
            ErrorCode.InvalidParams,
            supersedes === undefined
              ? 'memory_correct needs the id of the memory to correct, as `supersedes` (or its alias `id`)'
              : '`id` and `supersedes` name the memory to correct: give one, or the same id in both',
          );
        }
        const stored = presentStored(
          await this.createMemory.execute(principal, toNewMemory({ ...fields, supersedes })),
        );
        if (stored.review_state === 'proposed') {
          return {
            text: `Proposed the correction as memory #${stored.id}: #${supersedes} is a teammate’s memory, so the correction waits for its owner’s (or an admin’s) review; recall keeps answering with #${supersedes} until it is accepted.`,
            data: { ...stored, supersedes },
          };
        }
        return {
          text: `Stored the correction as memory #${stored.id}; it supersedes #${supersedes}, so recall now answers with #${stored.id}.`,
          data: { ...stored, supersedes },
        };
      },
    });
  }

  private link() {
    return defineTool({
      name: 'memory_link',
      title: 'Link two memories',
      description:
        'Connect two existing memories with a typed link: supersedes (the first replaces the second: recall answers with the first), part-of (a detail of a larger memory), see-also (related reading) or resolved-by (a problem and its fix). Both must be visible to you and the first yours to change. To store a new memory that replaces an old one use memory_correct. Returns the link {id, src_id, dst_id, link_type, created_at}.',
      scope: 'memories:write',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: z.strictObject(linkArgs),
      output: memoryLinkResponse,
      run: async (principal, args) => {
        const link = await this.createLink.execute(principal, toNewLink(args.id, args));
        return {
          text: `Linked: #${link.srcId} ${link.linkType} #${link.dstId}.`,
          data: presentLink(link),
        };
      },
    });
  }

  private unlink() {
    return defineTool({
      name: 'memory_unlink',
      title: 'Remove a link',
      description:
        'Remove a link made with memory_link or memory_correct, e.g. when a supersedes link was wrong and the old memory is true again. Name it as it was made: id, target_id, link_type (memory_get lists a memory’s links). Returns {unlinked: the link}.',
      scope: 'memories:write',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      input: z.strictObject(linkArgs),
      output: unlinkResponse,
      run: async (principal, args) => {
        const link = await this.deleteLink.execute(principal, toNewLink(args.id, args));
        return {
          text: `Removed the link #${link.srcId} ${link.linkType} #${link.dstId}.`,
          data: presentUnlinked(link),
        };
      },
    });
  }
}
