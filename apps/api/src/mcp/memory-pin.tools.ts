import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import {
  PinMemoryUseCase,
  pinResponse,
  pinScopeSchema,
  presentPin,
  UnpinMemoryUseCase,
  type PinResult,
} from '@app/memories';
import { memoryIdArg } from './mcp-schemas';
import { defineTool, type McpToolDefinition } from './mcp-tool';

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true } as const;

const whose = (result: PinResult) => (result.scope === 'team' ? 'everyone’s' : 'your');

/** Pins: what startup_context always lists first. */
@Injectable()
export class MemoryPinTools {
  readonly tools: McpToolDefinition[];

  constructor(
    private readonly pinMemory: PinMemoryUseCase,
    private readonly unpinMemory: UnpinMemoryUseCase,
  ) {
    this.tools = [
      defineTool({
        name: 'memory_pin',
        title: 'Pin a memory',
        description:
          'Pin a memory so that every session starts with it: startup_context lists pinned memories first, before everything else, in the memory’s project (or every project when it has none). scope "user" (default) pins it for your own sessions; scope "team" pins a team-visible memory for every teammate and needs an admin key. Use it when the user says something must be known at the start of every session. The memory itself is not changed. Returns {id, scope, pinned, changed}.',
        scope: 'memories:write',
        annotations: WRITE,
        input: z.strictObject({ id: memoryIdArg, scope: pinScopeSchema }),
        output: pinResponse,
        run: async (principal, args) => {
          const result = await this.pinMemory.execute(principal, args.id, args.scope);
          const done = result.changed ? 'Pinned' : 'Already pinned:';
          return {
            text: `${done} memory #${result.id} first in ${whose(result)} startup context.`,
            data: presentPin(result),
          };
        },
      }),
      defineTool({
        name: 'memory_unpin',
        title: 'Unpin a memory',
        description:
          'Remove a pin made with memory_pin: scope "user" (default) your own, scope "team" the team pin (admin key). The memory stays. Returns {id, scope, pinned, changed}.',
        scope: 'memories:write',
        annotations: { ...WRITE, destructiveHint: true },
        input: z.strictObject({ id: memoryIdArg, scope: pinScopeSchema }),
        output: pinResponse,
        run: async (principal, args) => {
          const result = await this.unpinMemory.execute(principal, args.id, args.scope);
          const done = result.changed ? 'Unpinned' : 'Was not pinned:';
          return {
            text: `${done} memory #${result.id} in ${whose(result)} startup context.`,
            data: presentPin(result),
          };
        },
      }),
    ];
  }
}
