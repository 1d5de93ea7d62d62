import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DATA_FRAME_CHARS, neutralizeRecalledLine } from '@app/kernel';
import {
  CheckMemoryUseCase,
  checkResponse,
  MAX_RECALL_LIMIT,
  checkSchema,
  RecallMemoriesUseCase,
  recallResponse,
  recallSchema,
  presentRecalled,
  toRecallInput,
  type CheckResult,
} from '@app/recall';
import {
  presentStartupContext,
  StartupContextUseCase,
  startupContextArgs,
  startupContextResponse,
} from '@app/sessions';
import { RecalledTextScreen } from '@app/secrets';
import { budgetFields, fitToOutputBudget, truncationNote } from './mcp-output-budget';
import { countText, memoriesText, memoryText } from './mcp-text.presenter';
import { defineTool, READ_ONLY, type McpToolDefinition } from './mcp-tool';

const recall = recallSchema.shape;

/** The match's content is stored text: screened by the caller, neutralised and kept on one line here. */
function checkText(result: CheckResult): string {
  const match = result.match;
  if (result.action === 'ADD' || !match) return 'ADD: nothing similar is stored; store it with memory_store.';
  const content = neutralizeRecalledLine(match.content);
  const similar = `memory #${match.id} (similarity ${match.similarity.toFixed(2)}): ${content}`;
  return result.action === 'NOOP'
    ? `NOOP: already known as ${similar}\nDo not store it again.`
    : `UPDATE: close to ${similar}\nPrefer memory_update with id ${match.id} over storing a near-copy.`;
}

/** Finding memories: recall by meaning, the write guard, and the session-start digest. */
@Injectable()
export class MemorySearchTools {
  readonly tools: McpToolDefinition[];

  constructor(
    private readonly recallMemories: RecallMemoriesUseCase,
    private readonly checkMemory: CheckMemoryUseCase,
    private readonly startupContext: StartupContextUseCase,
    private readonly screen: RecalledTextScreen,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.tools = [this.recall(), this.check(), this.startup()];
  }

  private recall() {
    const budget = this.config.mcp.maxOutputChars;
    return defineTool({
      name: 'memory_recall',
      title: 'Recall memories',
      description:
        'Find what you and your team already know about a topic before answering, planning or changing code: hybrid full-text and semantic search over your memories (and team-visible ones). Put the question or task in `context`; add synonyms in `expanded_query`. Returns the best matches with their ids and links, ranked; a memory that was superseded is answered by its newest version (marked redirected_from); sensitive ones show a placeholder naming secret_get. Output is cut to the output budget (truncated, omitted).',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject({
        context: recall.context.describe(
          'What you are looking for: the question, task or topic in your own words',
        ),
        expanded_query: recall.expanded_query.describe('Extra terms: synonyms, related names, abbreviations'),
        category: recall.category.describe('Only this category'),
        tags: recall.tags.describe('Only memories having any of these tags'),
        project: recall.project.describe('Only this project (a project name or its git remote URL)'),
        project_boost: recall.project_boost.describe(
          'The project you are working in (name or git remote URL): its memories rank first, the rest (project-less, other projects) still follow',
        ),
        sort_by: recall.sort_by.describe('relevance (default), importance or recency'),
        limit: z
          .number()
          .int()
          .min(1, 'limit must be at least 1')
          .max(MAX_RECALL_LIMIT, `limit must be at most ${MAX_RECALL_LIMIT}`)
          .default(10)
          .describe(`Most results to return (default 10, at most ${MAX_RECALL_LIMIT})`),
        include_superseded: recall.include_superseded.describe(
          'true to see history: superseded memories as they were, instead of their newest version',
        ),
        tree: recall.tree.describe(
          'Your working tree: repo (git remote), branch, commit, and the files you changed with their git blob ids (git hash-object; never contents). Memories anchored to those files are marked STALE in the answer',
        ),
      }),
      output: recallResponse.extend(budgetFields),
      run: async (principal, args) => {
        const results = await this.recallMemories.execute(principal, toRecallInput(args));
        const fitted = fitToOutputBudget(
          results.map((result) => this.screen.item(presentRecalled(result, false))),
          memoryText,
          budget - DATA_FRAME_CHARS,
        );
        const header =
          fitted.items.length === 0
            ? 'No memories match.'
            : `${countText(fitted.items.length, 'match', 'matches')}:\n`;
        return {
          text:
            `${header}${memoriesText(fitted.texts)}`.trimEnd() +
            truncationNote(fitted, budget, 'narrow the context, add filters or lower limit'),
          data: { memories: fitted.items, truncated: fitted.truncated, omitted: fitted.omitted },
        };
      },
    });
  }

  private check() {
    return defineTool({
      name: 'memory_check',
      title: 'Check before storing',
      description:
        'Write guard: before memory_store, ask whether the content is new (ADD), close to one of your memories that should be updated instead (UPDATE, with its id), or already known (NOOP). Returns {action, match?}.',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject({
        content: checkSchema.shape.content.describe('The content you are about to store'),
      }),
      output: checkResponse,
      run: async (principal, args) => {
        const checked = await this.checkMemory.execute(principal, args.content);
        const result = checked.match ? { ...checked, match: this.screen.item(checked.match) } : checked;
        return { text: checkText(result), data: result };
      },
    });
  }

  private startup() {
    const defaultBudget = this.config.mcp.startupContextChars;
    return defineTool({
      name: 'startup_context',
      title: 'Startup context',
      description:
        'Call once at the start of a session: one compact block of what you and your team know about `project` (a project name or the git remote URL) — pinned memories first (the team’s and your own), then what users asked to remember, the important memories, the newest decisions and corrections, and the summaries of the last sessions — within a character budget (`budget`, default MCP_STARTUP_CONTEXT_CHARS) and a token budget (`tokens`, default STARTUP_CONTEXT_TOKENS, estimated). Each memory is listed once with its id; what did not fit is named at the end. Use memory_get or memory_recall afterwards for specifics. Returns the block as text and {project, budget, tokens, text, estimated_tokens, sections: {pinned, requested, important, decisions, sessions}, truncated, omitted, left_out}.',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject({
        project: startupContextArgs.project.describe(
          'The project (repository) you are working in: its name or git remote URL',
        ),
        budget: startupContextArgs.budget,
        tokens: startupContextArgs.tokens,
      }),
      output: startupContextResponse,
      run: async (principal, args) => {
        const context = await this.startupContext.execute(principal, {
          project: args.project,
          budget: args.budget ?? defaultBudget,
          tokens: args.tokens,
        });
        return { text: context.text, data: presentStartupContext(context) };
      },
    });
  }
}
