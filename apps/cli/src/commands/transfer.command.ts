import { createReadStream, createWriteStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import {
  ExportMemoriesUseCase,
  exportMemoriesQuerySchema,
  ImportMemoriesUseCase,
  importMemoriesSchema,
  toExportInput,
  toImportedMemory,
  type ImportMemoryItemBody,
} from '@app/memories';
import { describeIssues, parseInput, TenancyError, TenancyErrorCode } from '@app/tenancy';
import type { CliContext } from '../cli-context';
import { json } from '../cli-output';
import { startProgress } from '../progress';
import { importTranscript } from './transcript-import';

interface Globals {
  json?: boolean;
  tenant?: string;
}

/**
 * `export` / `import`: a user's own memories out to a file and back, through the same use cases as
 * GET /api/memories/export and POST /api/memories/import (times kept, secrets screened again);
 * `import claude-code` stores a transcript as POST /api/import/claude-code does.
 */
export function registerTransferCommands(program: Command, context: CliContext): void {
  program
    .command('export')
    .description("write a user's own memories as json, jsonl or markdown (streamed)")
    .requiredOption('--user <username>', 'whose memories')
    .option('--format <format>', 'json, jsonl or markdown', 'jsonl')
    .option('--out <file>', 'write to this file (default: standard output)')
    .option('--project <name>', 'only this project')
    .option('--since <iso>', 'only memories changed at or after this time')
    .option('--include-deleted', 'also deleted and expired memories')
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (options: ExportOptions, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const query = parseInput(exportMemoriesQuerySchema, {
        format: options.format,
        project: options.project,
        since: options.since,
        include_deleted: options.includeDeleted ? 'true' : 'false',
      });
      const principal = await context.userPrincipal(globals.tenant, options.user);
      const exporter = await context.get(ExportMemoriesUseCase);
      const { stream } = await exporter.execute(principal, toExportInput(query));
      if (options.out === undefined) {
        for await (const chunk of stream) context.io.out(String(chunk));
        return;
      }
      await pipeline(stream, createWriteStream(options.out));
      context.io.err(`Exported the memories of "${principal.username}" to ${options.out}.\n`);
    });

  program
    .command('import')
    .description(
      "store a file as a user's own: memories from a json or jsonl file (an export), keeping their times, " +
        'or a Claude Code transcript as an ended session',
    )
    .argument(
      '[source]',
      'memories (an export; the default) or claude-code (a session transcript .jsonl)',
      'memories',
    )
    .requiredOption('--user <username>', 'who will own them')
    .requiredOption('--file <path>', 'memories: a JSON array or JSON Lines file; claude-code: a transcript')
    .option('--project <name>', 'claude-code: the project of the session')
    .option('--git-remote <url>', 'claude-code: the repository remote the project is derived from')
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (source: string, options: ImportOptions, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      if (source === 'claude-code') {
        await importTranscript(context, { ...options, json: globals.json === true, tenant: globals.tenant });
        return;
      }
      if (source !== 'memories') {
        throw new TenancyError(
          TenancyErrorCode.InvalidInput,
          `unknown source "${source}": memories or claude-code`,
        );
      }
      if (options.project !== undefined || options.gitRemote !== undefined) {
        throw new TenancyError(
          TenancyErrorCode.InvalidInput,
          '--project and --git-remote apply to claude-code imports (memories carry their own project)',
        );
      }
      await importMemories(context, { ...options, json: globals.json === true, tenant: globals.tenant });
    });
}

interface ImportOptions {
  user: string;
  file: string;
  project?: string;
  gitRemote?: string;
}

/** Memories: every item checked first (an invalid one leaves nothing behind), then stored batch by batch. */
async function importMemories(
  context: CliContext,
  options: ImportOptions & { json: boolean; tenant?: string },
): Promise<void> {
  const principal = await context.userPrincipal(options.tenant, options.user);
  const batchSize = context.config.limits.maxImportBatch;
  let total = 0;
  for await (const batch of readBatches(options.file, batchSize)) total += validate(batch, total).length;
  let imported = 0;
  const progress = startProgress(context.io, { label: 'imported', total, unit: '', json: options.json });
  const importer = await context.get(ImportMemoriesUseCase);
  try {
    for await (const batch of readBatches(options.file, batchSize)) {
      const items = validate(batch, imported);
      await importer.execute(principal, items.map(toImportedMemory));
      imported += items.length;
      progress.update(imported);
    }
  } finally {
    progress.stop();
  }
  context.io.out(
    options.json
      ? json({ imported, user: principal.username })
      : `Imported ${imported} memories for "${principal.username}".\n`,
  );
}

interface ExportOptions {
  user: string;
  format: string;
  out?: string;
  project?: string;
  since?: string;
  includeDeleted?: boolean;
}

/** Import items as the API reads them: null members count as absent. */
function validate(batch: readonly unknown[], offset: number): ImportMemoryItemBody[] {
  const items = batch.map((item) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null))
      : item,
  );
  const result = importMemoriesSchema.safeParse(items);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const index = typeof first.path[0] === 'number' ? offset + first.path[0] : offset;
  const rest = { ...result.error, issues: [{ ...first, path: first.path.slice(1) }] };
  throw new TenancyError(TenancyErrorCode.InvalidInput, `item ${index}: ${describeIssues(rest)}`);
}

/** A JSON array file is read whole; a JSON Lines file line by line, so its size does not matter. */
async function* readBatches(file: string, size: number): AsyncGenerator<unknown[]> {
  if (await startsWithBracket(file)) {
    const all: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!Array.isArray(all))
      throw new TenancyError(TenancyErrorCode.InvalidInput, `${file}: not a JSON array`);
    for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size);
    return;
  }
  let batch: unknown[] = [];
  let lineNo = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lineNo += 1;
    if (line.trim() === '') continue;
    try {
      batch.push(JSON.parse(line));
    } catch {
      throw new TenancyError(TenancyErrorCode.InvalidInput, `${file} line ${lineNo}: not valid JSON`);
    }
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function startsWithBracket(file: string): Promise<boolean> {
  const handle = await open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    return buffer.subarray(0, bytesRead).toString('utf8').trimStart().startsWith('[');
  } finally {
    await handle.close();
  }
}
