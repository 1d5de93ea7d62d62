import { z } from 'zod';
import { projectSchema } from '@app/memories';
import type { TranscriptImport } from '../application/import-claude-code-transcript.use-case';

/** Wire contracts of transcript imports (REST and the CLI's --json output). */

export const transcriptImportQuerySchema = z.object({
  project: projectSchema
    .optional()
    .describe('Project identity of the session; overrides git_remote (a remote URL is normalised)'),
  git_remote: z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .optional()
    .describe('The repository remote, from which the project is derived (the transcript names none)'),
});
export type TranscriptImportQuery = z.output<typeof transcriptImportQuerySchema>;

/** The body, for the OpenAPI document: the transcript file as it is. */
export const transcriptBodySchema = z
  .string()
  .describe(
    'A Claude Code transcript (~/.claude/projects/<dir>/<session>.jsonl): one JSON entry per line, sent as ' +
      'it is, streamed (chunked transfer encoding is fine)',
  );

export const transcriptImportResponse = z.object({
  session_id: z.uuid().describe("the transcript's sessionId"),
  job_id: z
    .uuid()
    .nullable()
    .describe('the follow-up job (GET /api/jobs/{id}); null when the transcript was already imported'),
  events: z.number().int().describe('events stored by this import (after redaction)'),
  duplicates: z.number().int().describe('events an earlier import of this transcript had already stored'),
  lines: z.number().int().describe('non-blank lines read'),
  skipped: z.number().int().describe('lines that are not transcript entries (not JSON, malformed, too long)'),
  ignored: z.number().int().describe('entries with nothing to keep (system, file snapshots, thinking)'),
  already_imported: z.boolean().describe('true: nothing new; the session was imported whole before'),
});
export type TranscriptImportResponse = z.infer<typeof transcriptImportResponse>;

export function toTranscriptImportInput(query: TranscriptImportQuery) {
  return { project: query.project, gitRemote: query.git_remote };
}

export function presentTranscriptImport(result: TranscriptImport): TranscriptImportResponse {
  return {
    session_id: result.sessionId,
    job_id: result.job?.id ?? null,
    events: result.events,
    duplicates: result.duplicates,
    lines: result.lines,
    skipped: result.skipped,
    ignored: result.ignored,
    already_imported: result.job === null,
  };
}
