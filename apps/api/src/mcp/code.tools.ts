import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import {
  presentVerify,
  toVerifyInput,
  VerifyMemoryUseCase,
  verifyMemoryResponse,
  verifyMemorySchema,
} from '@app/memories';
import { memoryIdArg } from './mcp-schemas';
import { defineTool, type McpToolDefinition } from './mcp-tool';

const verify = verifyMemorySchema.shape;

/** Memories that know the code: confirming or correcting one whose anchored code changed. */
@Injectable()
export class CodeTools {
  readonly tools: McpToolDefinition[];

  constructor(private readonly verifyMemory: VerifyMemoryUseCase) {
    this.tools = [
      defineTool({
        name: 'memory_verify',
        title: 'Verify a memory against changed code',
        description:
          'A memory marked STALE (the code it is anchored to changed since it was written) or ORPHANED (that file is gone): after reading the code as it is now, confirm it still holds (no `correction`: it becomes current, anchored to today’s code, and a version records it) or pass `correction` with the text that is true now (it replaces the memory; a proposal for review when the memory is a teammate’s you may not change). Pass `tree` (your repo, commit and changed files with blob ids) to anchor it to your working tree. Returns {id, verified, anchors?, corrected_by?}.',
        scope: 'memories:write',
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
        input: z.strictObject({
          id: memoryIdArg,
          correction: verify.correction,
          tree: verify.tree,
        }),
        output: verifyMemoryResponse,
        run: async (principal, { id, ...body }) => {
          const result = presentVerify(await this.verifyMemory.execute(principal, id, toVerifyInput(body)));
          if (result.verified) {
            return {
              text: `Verified memory #${result.id}: it is current again, anchored to the code as it is now.`,
              data: result,
            };
          }
          const by = result.corrected_by;
          const how = by?.review_state === 'proposed' ? 'proposed for review as' : 'replaced by';
          return { text: `Memory #${result.id} ${how} memory #${by?.id}.`, data: result };
        },
      }),
    ];
  }
}
