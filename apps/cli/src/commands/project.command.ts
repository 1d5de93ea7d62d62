import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import {
  agentContextFormatSchema,
  agentContextParamsSchema,
  RenderAgentContextUseCase,
  spliceAgentContext,
} from '@app/memories';
import { parseInput } from '@app/tenancy';
import type { CliContext } from '../cli-context';
import { json } from '../cli-output';

const memories = (n: number) => `${n} ${n === 1 ? 'memory' : 'memories'}`;

interface Globals {
  json?: boolean;
  tenant?: string;
}

interface RenderOptions {
  format: string;
  user: string;
  out?: string;
  check?: boolean;
}

/**
 * `project render`: a project's agent rule file (AGENTS.md, CLAUDE.md, a Cursor rule), through the
 * same use case as GET /api/projects/:project/agent-context. Only the marker block of an existing
 * file is replaced. `--check` writes nothing and exits 1 when the file would change, for CI.
 */
export function registerProjectCommands(program: Command, context: CliContext): void {
  const project = program.command('project').description("a project's team knowledge as agent rule files");

  project
    .command('render <project>')
    .description(
      "write the project's pinned memories, decisions, corrections and conventions (team-visible, current) " +
        'into an agent rule file, replacing only its team-memory block; --check exits 1 when the file would change',
    )
    .option('--format <format>', 'agents-md (AGENTS.md), claude-md (CLAUDE.md) or cursor-rules', 'agents-md')
    .requiredOption('--user <username>', 'render as this user (any teammate renders the same file)')
    .option('--out <file>', 'the file to write (default: the format’s file in the current directory)')
    .option('--check', 'write nothing; exit 1 when the file is missing or would change')
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (name: string, options: RenderOptions, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const { project: identity } = parseInput(agentContextParamsSchema, { project: name });
      const format = parseInput(agentContextFormatSchema, options.format);
      const principal = await context.userPrincipal(globals.tenant, options.user);
      const render = await context.get(RenderAgentContextUseCase);
      const rendered = await render.execute(principal, { project: identity, format });
      const file = options.out ?? rendered.file;
      const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      const next = spliceAgentContext(existing, rendered.content);
      const changed = next !== existing;
      if (options.check) {
        if (changed) context.checkFailed = true;
        context.io.out(
          globals.json
            ? json({ file, changed, memory_ids: rendered.memoryIds })
            : changed
              ? `${file} would change (${existing === null ? 'missing' : 'out of date'}): run project render ${identity} --format ${format} to update it.\n`
              : `${file} is up to date (${memories(rendered.memoryIds.length)}).\n`,
        );
        return;
      }
      if (changed) {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, next);
      }
      context.io.out(
        globals.json
          ? json({ file, changed, memory_ids: rendered.memoryIds })
          : `${changed ? 'Wrote' : 'Kept'} ${file} (${memories(rendered.memoryIds.length)} of ${identity}).\n`,
      );
    });
}
