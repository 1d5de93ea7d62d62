import { createReadStream } from 'node:fs';
import {
  ImportClaudeCodeTranscriptUseCase,
  presentTranscriptImport,
  SessionImportModule,
} from '@app/sessions';
import type { CliContext } from '../cli-context';
import { json } from '../cli-output';
import { startProgress } from '../progress';

export interface TranscriptImportOptions {
  readonly user: string;
  readonly file: string;
  readonly project?: string;
  readonly gitRemote?: string;
  readonly tenant?: string;
  readonly json: boolean;
}

/**
 * `import claude-code`: the transcript streamed through the same use case as
 * POST /api/import/claude-code, with progress over its lines (counted first, so the bar starts at
 * the real total). The follow-up job is queued through the outbox; a worker runs it.
 */
export async function importTranscript(context: CliContext, options: TranscriptImportOptions): Promise<void> {
  context.include(SessionImportModule);
  const principal = await context.userPrincipal(options.tenant, options.user);
  const total = await countLines(options.file);
  const importer = await context.get(ImportClaudeCodeTranscriptUseCase);
  const progress = startProgress(context.io, { label: 'imported', total, unit: 'lines', json: options.json });
  let result;
  try {
    result = await importer.execute(principal, {
      body: createReadStream(options.file),
      project: options.project,
      gitRemote: options.gitRemote,
      onProgress: (lines) => progress.update(lines),
    });
    progress.update(result.lines);
  } finally {
    progress.stop();
  }
  const answer = presentTranscriptImport(result);
  if (options.json) {
    context.io.out(json({ ...answer, user: principal.username }));
    return;
  }
  const notes = [
    `${answer.skipped} lines skipped`,
    ...(answer.duplicates > 0 ? [`${answer.duplicates} events were already stored`] : []),
  ].join(', ');
  context.io.out(
    answer.already_imported
      ? `Session ${answer.session_id} of "${principal.username}" was already imported; nothing new (${notes}).\n`
      : `Imported session ${answer.session_id} for "${principal.username}": ${answer.events} events (${notes}). ` +
          `Job ${answer.job_id} processes them; a worker runs it.\n`,
  );
}

/** Non-blank lines, read as bytes: what the import counts as `lines`. */
async function countLines(file: string): Promise<number> {
  let lines = 0;
  let blank = true;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (const byte of chunk) {
      if (byte === 0x0a) {
        if (!blank) lines += 1;
        blank = true;
      } else if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) {
        blank = false;
      }
    }
  }
  return blank ? lines : lines + 1;
}
