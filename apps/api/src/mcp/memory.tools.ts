import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DATA_FRAME_CHARS } from '@app/kernel';
import {
  CountMemoriesUseCase,
  CreateMemoryUseCase,
  deleteResponse,
  DeleteMemoryUseCase,
  GetMemoryUseCase,
  ListMemoriesUseCase,
  memoryDetailWithLinksResponse,
  memoryListResponse,
  presentDetail,
  presentLinks,
  presentListItem,
  presentStored,
  restoreResponse,
  RestoreMemoryUseCase,
  storedMemoryResponse,
  toMemoryPatch,
  toNewMemory,
  updateResponse,
  UpdateMemoryUseCase,
} from '@app/memories';
import { RecalledTextScreen } from '@app/secrets';
import { budgetFields, fitToOutputBudget, truncationNote } from './mcp-output-budget';
import { filterFields, memoryIdArg, storeFields, supersedesArg, updateFields } from './mcp-schemas';
import { countText, memoriesText, memoryText } from './mcp-text.presenter';
import { defineTool, READ_ONLY, type McpToolDefinition } from './mcp-tool';

/** Storing, reading, changing and deleting the caller's own memories. */
@Injectable()
export class MemoryTools {
  readonly tools: McpToolDefinition[];

  constructor(
    private readonly createMemory: CreateMemoryUseCase,
    private readonly getMemory: GetMemoryUseCase,
    private readonly updateMemory: UpdateMemoryUseCase,
    private readonly deleteMemory: DeleteMemoryUseCase,
    private readonly restoreMemory: RestoreMemoryUseCase,
    private readonly listMemories: ListMemoriesUseCase,
    private readonly countMemories: CountMemoriesUseCase,
    private readonly screen: RecalledTextScreen,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.tools = [
      this.store(),
      this.get(),
      this.update(),
      this.remove(),
      this.restore(),
      this.list(),
      this.count(),
    ];
  }

  private store() {
    return defineTool({
      name: 'memory_store',
      title: 'Store a memory',
      description:
        'Save something worth remembering across sessions and teammates: a fact about the codebase, a decision and its reason, a preference, a gotcha, a runbook step. Call memory_check first to avoid near-duplicates. Content that a memory you can see already holds (yours, or the same fact in a teammate’s team memory, by text or meaning) is not stored twice: the answer names it as `duplicate_of`. Memories are shared with the whole team by default; pass visibility "private" for personal preferences or anything only you should see. Credentials are detected and moved to the secret store. When it replaces an older memory, pass its id as `supersedes` (or use memory_correct). Returns {id, category, importance} (plus duplicate_of, match, similarity when nothing new was stored).',
      scope: 'memories:write',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      input: z.strictObject({ ...storeFields, supersedes: supersedesArg.optional() }),
      output: storedMemoryResponse,
      run: async (principal, args) => {
        const stored = presentStored(await this.createMemory.execute(principal, toNewMemory(args)));
        const replaces = args.supersedes === undefined ? '' : `, replacing #${args.supersedes}`;
        if (stored.duplicate_of !== undefined) {
          const how =
            stored.match === 'exact' ? 'the same text' : `the same meaning (similarity ${stored.similarity})`;
          return {
            text: `Not stored again: memory #${stored.duplicate_of} already says this (${how}); nothing new was written.`,
            data: stored,
          };
        }
        return {
          text: `Stored as memory #${stored.id} (category ${stored.category}, importance ${stored.importance}${replaces}).`,
          data: stored,
        };
      },
    });
  }

  private get() {
    return defineTool({
      name: 'memory_get',
      title: 'Read one memory',
      description:
        'Read one memory you can see (yours, the team’s, or shared with you) in full, including its expanded keywords and its links (links_out, links_in: what it supersedes or is superseded by, is part of, is resolved by, is related to), when you have its id (from memory_list, memory_recall or startup_context). Returns the memory; a sensitive one shows its redacted text (use secret_get for the secret).',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject({ id: memoryIdArg }),
      output: memoryDetailWithLinksResponse,
      run: async (principal, args) => {
        const found = await this.getMemory.withLinks(principal, args.id);
        const detail = { ...presentDetail(found.memory), ...presentLinks(args.id, found.links) };
        const memory = this.screen.item(detail, ['expanded_keywords']);
        return { text: memoriesText([memoryText(memory)]).trimEnd(), data: memory };
      },
    });
  }

  private update() {
    return defineTool({
      name: 'memory_update',
      title: 'Update a memory',
      description:
        'Correct or extend one of your memories instead of storing a near-copy (memory_check answers UPDATE with the id to use), or change who sees it (visibility). Only the fields you pass change. You may change your own memories and those shared with you for writing; only the owner changes visibility. Returns {updated: id}.',
      scope: 'memories:write',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      input: z.strictObject({ id: memoryIdArg, ...updateFields }),
      output: updateResponse,
      run: async (principal, { id, ...patch }) => {
        const result = await this.updateMemory.execute(principal, id, toMemoryPatch(patch));
        return { text: `Updated memory #${result.updated}.`, data: result };
      },
    });
  }

  private remove() {
    return defineTool({
      name: 'memory_delete',
      title: 'Delete a memory',
      description:
        'Delete one of your memories that is wrong or obsolete. The delete is soft: memory_restore brings it back. Returns {deleted: id, preview} with the start of the deleted content.',
      scope: 'memories:write',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      input: z.strictObject({ id: memoryIdArg }),
      output: deleteResponse,
      run: async (principal, args) => {
        const result = await this.deleteMemory.execute(principal, args.id);
        return {
          text: `Deleted memory #${result.deleted} (“${result.preview}”); memory_restore undoes it.`,
          data: result,
        };
      },
    });
  }

  private restore() {
    return defineTool({
      name: 'memory_restore',
      title: 'Restore a deleted memory',
      description:
        'Undo memory_delete for one of your memories. Restoring a live memory changes nothing. Returns {restored: id}.',
      scope: 'memories:write',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      input: z.strictObject({ id: memoryIdArg }),
      output: restoreResponse,
      run: async (principal, args) => {
        const result = await this.restoreMemory.execute(principal, args.id);
        return { text: `Restored memory #${result.restored}.`, data: result };
      },
    });
  }

  private list() {
    const budget = this.config.mcp.maxOutputChars;
    // The REST route's ceiling (MAX_LIST_LIMIT), advertised in the schema instead of clamped.
    const maxLimit = this.config.limits.maxListLimit;
    return defineTool({
      name: 'memory_list',
      title: 'List memories',
      description:
        'Browse your memories by category, tag or project, most important first, e.g. to review or clean up. To find memories about a topic use memory_recall instead. Returns {memories, total}; long pages are cut to the output budget (truncated, omitted).',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject({
        ...filterFields,
        limit: z
          .number()
          .int()
          .min(1, 'limit must be at least 1')
          .max(maxLimit, `limit must be at most ${maxLimit} (MAX_LIST_LIMIT)`)
          .optional()
          .describe(`Page size (default 50, at most ${maxLimit})`),
        offset: z.number().int().min(0).optional().describe('Items to skip, for paging'),
      }),
      output: memoryListResponse.extend(budgetFields),
      run: async (principal, args) => {
        const page = await this.listMemories.execute(principal, args);
        const items = page.memories.map((m) => this.screen.item(presentListItem(m)));
        const fitted = fitToOutputBudget(items, memoryText, budget - DATA_FRAME_CHARS);
        const nextOffset = (args.offset ?? 0) + fitted.items.length;
        const header = `${countText(fitted.items.length, 'memory', 'memories')} of ${page.total}:\n`;
        return {
          text:
            `${header}${memoriesText(fitted.texts)}`.trimEnd() +
            truncationNote(fitted, budget, `continue with offset=${nextOffset}`),
          data: {
            memories: fitted.items,
            total: page.total,
            truncated: fitted.truncated,
            omitted: fitted.omitted,
          },
        };
      },
    });
  }

  private count() {
    return defineTool({
      name: 'memory_count',
      title: 'Count memories',
      description:
        'How many memories you have, optionally within a category, tag or project. Cheap; use it before paging through memory_list. Returns {total}.',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject(filterFields),
      output: z.object({ total: z.number().int() }),
      run: async (principal, args) => {
        const result = await this.countMemories.execute(principal, args);
        return { text: `${countText(result.total, 'memory', 'memories')}.`, data: result };
      },
    });
  }
}
