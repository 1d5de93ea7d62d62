import { Controller, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  ImportClaudeCodeTranscriptUseCase,
  presentTranscriptImport,
  toTranscriptImportInput,
  transcriptBodySchema,
  transcriptImportQuerySchema,
  transcriptImportResponse,
} from '@app/sessions';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { JSON_LINES_TYPES, STREAMED_BODY } from '../http/input-guards';
import { parseInput } from '../http/request-validation.error';
import { streamedBody } from '../http/streamed-body';
import { ApiRoute } from '../openapi/api-route.decorator';
import { QUOTA_ERRORS } from '../openapi/openapi-helpers';

/** Imports of agent transcripts, streamed in. Validate, call one use case, present. */
@Controller('import')
export class SessionImportController {
  constructor(
    @Inject(ImportClaudeCodeTranscriptUseCase)
    private readonly importTranscript: ImportClaudeCodeTranscriptUseCase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('claude-code')
  @HttpCode(202)
  @RouteConfig(STREAMED_BODY)
  @RequireScopes('sessions:write')
  @ApiRoute({
    operationId: 'importClaudeCodeTranscript',
    tag: 'sessions',
    summary: 'Import a Claude Code transcript as an ended session (streamed; follow-up processing as a job)',
    description:
      'Reads the transcript line by line as it arrives and stores its entries as session events in batches: ' +
      'user text → prompt, tool_use → tool_call, tool results and assistant text → observation, the summary ' +
      'entry → the session summary; secrets are redacted, long texts capped, entry times kept. The session id ' +
      'is the transcript’s sessionId; importing the same transcript again stores nothing twice (it answers 200 ' +
      'with `already_imported: true` when there is nothing new). Lines that are not transcript entries are ' +
      'skipped and counted. 202 names the follow-up job in `Location` (GET /api/jobs/{id}).',
    query: transcriptImportQuerySchema,
    body: transcriptBodySchema,
    bodyMediaTypes: JSON_LINES_TYPES,
    response: transcriptImportResponse,
    responseDescription: 'Stored; the follow-up job is queued (200 with job_id null: already imported)',
    errors: {
      409: 'The transcript’s session id is taken by a session that is not yours',
      ...QUOTA_ERRORS.sessions,
      413: 'The body is over TRANSCRIPT_IMPORT_MAX_BYTES',
      415: 'The body is not sent as application/x-ndjson or application/jsonl',
      422: 'The body is not a Claude Code transcript (no entry names its session)',
    },
  })
  async claudeCode(
    @CurrentPrincipal() principal: Principal,
    @Query() query: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const input = toTranscriptImportInput(parseInput(transcriptImportQuerySchema, query, 400));
    const body = streamedBody(request, {
      maxBytes: this.config.limits.transcriptImportMaxBytes,
      limitName: 'TRANSCRIPT_IMPORT_MAX_BYTES',
    });
    const result = await this.importTranscript.execute(principal, { ...input, body });
    if (result.job) void reply.header('location', `/api/jobs/${result.job.id}`);
    else void reply.status(200);
    return presentTranscriptImport(result);
  }
}
