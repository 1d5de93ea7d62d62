import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DATA_FRAME_CHARS, quotedMemory } from '@app/kernel';
import {
  ListMySharesUseCase,
  ListSharedWithMeUseCase,
  mySharesResponse,
  presentMyShares,
  presentSharedMemory,
  shareMemoryResponse,
  shareMemorySchema,
  ShareMemoryUseCase,
  shareTagResponse,
  shareTagSchema,
  ShareTagUseCase,
  sharedMemoryResponse,
  unshareMemoryResponse,
  UnshareMemoryUseCase,
  unshareTagResponse,
  unshareTagSchema,
  UnshareTagUseCase,
  updateResponse,
  UpdateMemoryUseCase,
} from '@app/memories';
import { RecalledTextScreen } from '@app/secrets';
import { budgetFields, fitToOutputBudget, truncationNote } from './mcp-output-budget';
import { memoryIdArg } from './mcp-schemas';
import { countText, memoriesText } from './mcp-text.presenter';
import { defineTool, READ_ONLY, type McpToolDefinition } from './mcp-tool';

const share = shareMemorySchema.shape;
const tagShare = shareTagSchema.shape;
const WHO = 'Username of the teammate (same team)';
const PERMISSION = '"read" (default): they see it; "write": they may also change its content';
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true } as const;

/** Sharing private memories with teammates, by memory or by tag, and making them team-wide. */
@Injectable()
export class SharingTools {
  readonly tools: McpToolDefinition[];

  constructor(
    private readonly shareMemory: ShareMemoryUseCase,
    private readonly unshareMemory: UnshareMemoryUseCase,
    private readonly shareTag: ShareTagUseCase,
    private readonly unshareTag: UnshareTagUseCase,
    private readonly sharedWithMe: ListSharedWithMeUseCase,
    private readonly myShares: ListMySharesUseCase,
    private readonly updateMemory: UpdateMemoryUseCase,
    private readonly screen: RecalledTextScreen,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.tools = [
      defineTool({
        name: 'memory_share',
        title: 'Share a memory with a teammate',
        description:
          'Let one teammate see (or, with permission "write", edit) one of your private memories without making it team-wide. Repeat to change the permission. Returns {shared, with, permission}.',
        scope: 'memories:write',
        annotations: WRITE,
        input: z.strictObject({
          id: memoryIdArg,
          shared_with: share.shared_with.describe(WHO),
          permission: share.permission.describe(PERMISSION),
        }),
        output: shareMemoryResponse,
        run: async (principal, args) => {
          const result = await this.shareMemory.execute(principal, args.id, {
            sharedWith: args.shared_with,
            permission: args.permission,
          });
          return {
            text: `Shared memory #${result.shared} with ${result.with} (${result.permission}).`,
            data: result,
          };
        },
      }),
      defineTool({
        name: 'memory_unshare',
        title: 'Stop sharing a memory',
        description: 'Take back a share made with memory_share. Returns {unshared, from}.',
        scope: 'memories:write',
        annotations: { ...WRITE, destructiveHint: true },
        input: z.strictObject({ id: memoryIdArg, shared_with: share.shared_with.describe(WHO) }),
        output: unshareMemoryResponse,
        run: async (principal, args) => {
          const result = await this.unshareMemory.execute(principal, args.id, args.shared_with);
          return {
            text: `Memory #${result.unshared} is no longer shared with ${result.from}.`,
            data: result,
          };
        },
      }),
      defineTool({
        name: 'memory_share_tag',
        title: 'Share a tag with a teammate',
        description:
          'Share every memory of yours with a tag — the ones you have and the ones you store later — with one teammate, e.g. all "oncall" notes with the new on-call engineer. Returns {shared_tag, with, permission}.',
        scope: 'memories:write',
        annotations: WRITE,
        input: z.strictObject({
          tag: tagShare.tag.describe('The tag whose memories to share'),
          shared_with: tagShare.shared_with.describe(WHO),
          permission: tagShare.permission.describe(PERMISSION),
        }),
        output: shareTagResponse,
        run: async (principal, args) => {
          const result = await this.shareTag.execute(principal, {
            tag: args.tag,
            sharedWith: args.shared_with,
            permission: args.permission,
          });
          return {
            text: `Memories tagged "${result.shared_tag}" are shared with ${result.with} (${result.permission}).`,
            data: result,
          };
        },
      }),
      defineTool({
        name: 'memory_unshare_tag',
        title: 'Stop sharing a tag',
        description: 'Remove a rule made with memory_share_tag. Returns {unshared_tag, from}.',
        scope: 'memories:write',
        annotations: { ...WRITE, destructiveHint: true },
        input: z.strictObject(unshareTagSchema.shape),
        output: unshareTagResponse,
        run: async (principal, args) => {
          const result = await this.unshareTag.execute(principal, {
            tag: args.tag,
            sharedWith: args.shared_with,
          });
          return {
            text: `Memories tagged "${result.unshared_tag}" are no longer shared with ${result.from}.`,
            data: result,
          };
        },
      }),
      this.listSharedWithMe(),
      defineTool({
        name: 'memory_my_shares',
        title: 'What I share',
        description:
          'List the memories and tags you share and with whom, e.g. before cleaning up shares. Returns {memory_shares, tag_shares}.',
        scope: 'memories:read',
        annotations: READ_ONLY,
        input: z.strictObject({}),
        output: mySharesResponse,
        run: async (principal) => {
          const result = presentMyShares(await this.myShares.execute(principal));
          const lines = [
            ...result.memory_shares.map(
              (s) => `- memory #${s.memory_id} → ${s.shared_with} (${s.permission}): ${s.preview}`,
            ),
            ...result.tag_shares.map((s) => `- tag "${s.tag}" → ${s.shared_with} (${s.permission})`),
          ];
          return { text: lines.length > 0 ? lines.join('\n') : 'You share nothing.', data: result };
        },
      }),
      defineTool({
        name: 'memory_promote',
        title: 'Make a memory team-wide',
        description:
          'Turn one of your private memories into team knowledge that every teammate’s agent recalls, once it proved useful beyond you. Returns {updated: id}.',
        scope: 'memories:write',
        annotations: WRITE,
        input: z.strictObject({ id: memoryIdArg }),
        output: updateResponse,
        run: async (principal, args) => {
          const result = await this.updateMemory.execute(principal, args.id, { visibility: 'team' });
          return { text: `Memory #${result.updated} is now visible to the whole team.`, data: result };
        },
      }),
    ];
  }

  private listSharedWithMe() {
    const budget = this.config.mcp.maxOutputChars;
    return defineTool({
      name: 'memory_shared_with_me',
      title: 'Memories shared with me',
      description:
        'List teammates’ private memories shared with you (directly or by tag), most important first, with who shared them and your permission. To search them by topic use memory_recall, which includes them. Returns {memories}; long lists are cut to the output budget.',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject({}),
      output: z.object({ memories: z.array(sharedMemoryResponse), ...budgetFields }),
      run: async (principal) => {
        const memories = (await this.sharedWithMe.execute(principal)).map((m) =>
          this.screen.item(presentSharedMemory(m)),
        );
        const fitted = fitToOutputBudget(
          memories,
          (m) =>
            quotedMemory({
              id: m.id,
              category: m.category,
              author: m.shared_by,
              date: m.updated_at,
              facts: [`shared with you (${m.permission})`],
              text: m.content,
            }),
          budget - DATA_FRAME_CHARS,
        );
        return {
          text:
            `${countText(fitted.items.length, 'memory', 'memories')} shared with you:\n${memoriesText(fitted.texts)}`.trimEnd() +
            truncationNote(fitted, budget, 'use memory_recall to narrow down'),
          data: { memories: fitted.items, truncated: fitted.truncated, omitted: fitted.omitted },
        };
      },
    });
  }
}
