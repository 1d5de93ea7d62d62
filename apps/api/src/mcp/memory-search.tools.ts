import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  CheckMemoryUseCase,
  checkResponse,
  checkSchema,
  RecallMemoriesUseCase,
  recallResponse,
  recallSchema,
  presentRecalled,
  toRecallInput,
  type CheckResult,
} from '@app/recall';
import { memoryListItemResponse, presentListItem } from '@app/memories';
import { StartupContextUseCase } from '@app/sessions';
import { budgetFields, fitToBudget, truncationNote, type Budgeted } from './mcp-output-budget';
import { filterFields } from './mcp-schemas';
import { countText, memoryText } from './mcp-text.presenter';
import { defineTool, READ_ONLY, type McpToolDefinition } from './mcp-tool';

const recall = recallSchema.shape;

function checkText(result: CheckResult): string {
  const match = result.match;
  if (result.action === 'ADD' || !match) return 'ADD: nothing similar is stored; store it with memory_store.';
  const similar = `memory #${match.id} (similarity ${match.similarity.toFixed(2)}): ${match.content}`;
  return result.action === 'NOOP'
    ? `NOOP: already known as ${similar}\nDo not store it again.`
    : `UPDATE: close to ${similar}\nPrefer memory_update with id ${match.id} over storing a near-copy.`;
}

function startupText(project: string | undefined, fitted: Budgeted<unknown>, split: number): string {
  const scope = project ? `project ${project}` : 'all projects';
  if (fitted.items.length === 0) return `No memories yet (${scope}). Store what you learn with memory_store.`;
  const section = (title: string, texts: string[]) =>
    texts.length === 0 ? '' : `## ${title}\n\n${texts.join('')}`;
  const header = `Startup context for ${scope}: ${countText(fitted.items.length, 'memory', 'memories')}.\n\n`;
  return (
    header +
    section('Most important', fitted.texts.slice(0, split)) +
    section('Recently changed', fitted.texts.slice(split))
  ).trimEnd();
}

/** Finding memories: recall by meaning, the write guard, and the session-start digest. */
@Injectable()
export class MemorySearchTools {
  readonly tools: McpToolDefinition[];

  constructor(
    private readonly recallMemories: RecallMemoriesUseCase,
    private readonly checkMemory: CheckMemoryUseCase,
    private readonly startupContext: StartupContextUseCase,
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
        project: recall.project.describe('Only this project'),
        sort_by: recall.sort_by.describe('relevance (default), importance or recency'),
        limit: recall.limit.describe('Most results to return (default 10, at most 100)'),
        include_superseded: recall.include_superseded.describe(
          'true to see history: superseded memories as they were, instead of their newest version',
        ),
      }),
      output: recallResponse.extend(budgetFields),
      run: async (principal, args) => {
        const results = await this.recallMemories.execute(principal, toRecallInput(args));
        const fitted = fitToBudget(
          results.map((result) => presentRecalled(result, false)),
          memoryText,
          budget,
        );
        const header =
          fitted.items.length === 0
            ? 'No memories match.'
            : `${countText(fitted.items.length, 'match', 'matches')}:\n\n`;
        return {
          text:
            `${header}${fitted.texts.join('')}`.trimEnd() +
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
        const result = await this.checkMemory.execute(principal, args.content);
        return { text: checkText(result), data: result };
      },
    });
  }

  private startup() {
    const budget = this.config.mcp.startupContextChars;
    return defineTool({
      name: 'startup_context',
      title: 'Startup context',
      description:
        'Call once at the start of a session: the most important and the most recently changed memories (of `project` plus those without a project), within a fixed output budget. Use memory_recall afterwards for anything specific. Returns {important, recent} plus truncated/omitted.',
      scope: 'memories:read',
      annotations: READ_ONLY,
      input: z.strictObject({
        project: filterFields.project.describe('The project (repository) you are working in'),
      }),
      output: z.object({
        project: z.string().nullable(),
        important: z.array(memoryListItemResponse),
        recent: z.array(memoryListItemResponse),
        ...budgetFields,
      }),
      run: async (principal, args) => {
        const context = await this.startupContext.execute(principal, { project: args.project });
        const important = context.important.map(presentListItem);
        const fitted = fitToBudget(
          [...important, ...context.recent.map(presentListItem)],
          memoryText,
          budget,
        );
        // Budgeting keeps order, so the first `split` kept items are the important ones.
        const split = Math.min(important.length, fitted.items.length);
        return {
          text:
            startupText(args.project, fitted, split) +
            truncationNote(fitted, budget, 'use memory_recall for specifics'),
          data: {
            project: args.project ?? null,
            important: fitted.items.slice(0, split),
            recent: fitted.items.slice(split),
            truncated: fitted.truncated,
            omitted: fitted.omitted,
          },
        };
      },
    });
  }
}
