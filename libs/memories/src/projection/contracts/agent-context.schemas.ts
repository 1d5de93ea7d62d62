import { z } from 'zod';
import { projectSchema } from '../../contracts/project.schemas';
import { AGENT_CONTEXT_FORMATS } from '../domain/agent-context';
import type { RenderedAgentContext } from '../domain/agent-context-render';

/** Wire contract of the agent rule files, shared by REST, the CLI and OpenAPI. */

export const agentContextFormatSchema = z
  .enum(AGENT_CONTEXT_FORMATS, {
    error: `format must be one of ${AGENT_CONTEXT_FORMATS.join(', ')}`,
  })
  .default('agents-md')
  .describe(
    'agents-md (default): AGENTS.md; claude-md: CLAUDE.md; cursor-rules: .cursor/rules/team-memory.mdc',
  );

export const agentContextParamsSchema = z.object({
  project: projectSchema.describe(
    'The project (host/owner/repo, or a git remote URL), URL-encoded: github.com%2Facme%2Fpay',
  ),
});

export const agentContextQuerySchema = z.strictObject({ format: agentContextFormatSchema });

export const agentContextResponse = z.object({
  project: z.string().describe('The project, normalised'),
  format: z.enum(AGENT_CONTEXT_FORMATS),
  file: z.string().describe('Where the file goes, relative to the repository root'),
  content: z
    .string()
    .describe(
      'The file: a marker block (`<!-- team-memory:begin … -->` … `<!-- team-memory:end -->`), under front matter for cursor-rules',
    ),
  memory_ids: z.array(z.number().int()).describe('The rendered memories, in the file’s order'),
  omitted: z.number().int().describe('Memories left out by the caps (200 memories, 32 KB of text)'),
});

export function presentAgentContext(rendered: RenderedAgentContext): z.infer<typeof agentContextResponse> {
  return {
    project: rendered.project,
    format: rendered.format,
    file: rendered.file,
    content: rendered.content,
    memory_ids: [...rendered.memoryIds],
    omitted: rendered.omitted,
  };
}
