import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  acceptedEventsResponse,
  GetSessionTimelineUseCase,
  GetSessionUseCase,
  ListSessionsUseCase,
  listSessionsQuerySchema,
  presentEvent,
  presentSession,
  presentSessionDetail,
  RecordSessionEventsUseCase,
  recordEventsSchema,
  sessionDetailResponse,
  sessionListResponse,
  sessionResponse,
  StartSessionUseCase,
  startSessionSchema,
  startedSessionResponse,
  timelineQuerySchema,
  timelineResponse,
  toNewEvents,
  toNewSession,
  toSessionId,
  toSessionPatch,
  UpdateSessionUseCase,
  updateSessionSchema,
} from '@app/sessions';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { QUOTA_ERRORS } from '../openapi/openapi-helpers';
import { sessionIdParams } from '../openapi/route-schemas';

const NOT_YOURS = 'No such session of yours (another user’s sessions are never visible)';

/** Agent sessions and their captured events. Each method validates, calls one use case, presents. */
@Controller('sessions')
export class SessionsController {
  constructor(
    private readonly startSession: StartSessionUseCase,
    private readonly updateSession: UpdateSessionUseCase,
    private readonly listSessions: ListSessionsUseCase,
    private readonly getSession: GetSessionUseCase,
    private readonly recordEvents: RecordSessionEventsUseCase,
    private readonly timeline: GetSessionTimelineUseCase,
  ) {}

  @Post()
  @HttpCode(200)
  @RequireScopes('sessions:write')
  @ApiRoute({
    operationId: 'startSession',
    tag: 'sessions',
    summary: 'Start a session (idempotent on a client-supplied id)',
    body: startSessionSchema,
    response: startedSessionResponse,
    errors: { 409: 'The id is already used by another session', ...QUOTA_ERRORS.sessions },
  })
  async start(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const started = await this.startSession.execute(
      principal,
      toNewSession(parseInput(startSessionSchema, body ?? {})),
    );
    return { ...presentSession(started), created: started.created };
  }

  @Get()
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'listSessions',
    tag: 'sessions',
    summary: 'List your sessions, newest first',
    query: listSessionsQuerySchema,
    response: sessionListResponse,
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const input = parseInput(listSessionsQuerySchema, query, 400);
    const sessions = await this.listSessions.execute(principal, input);
    return { sessions: sessions.map(presentSession) };
  }

  @Get(':id')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'getSession',
    tag: 'sessions',
    summary: 'One session with its event counts per kind',
    params: sessionIdParams,
    response: sessionDetailResponse,
    errors: { 404: NOT_YOURS },
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentSessionDetail(await this.getSession.execute(principal, toSessionId(id)));
  }

  @Patch(':id')
  @RequireScopes('sessions:write')
  @ApiRoute({
    operationId: 'updateSession',
    tag: 'sessions',
    summary: 'End a session, change its status or record its summary',
    params: sessionIdParams,
    body: updateSessionSchema,
    response: sessionResponse,
    errors: { 404: NOT_YOURS },
  })
  async update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const sessionId = toSessionId(id);
    const patch = toSessionPatch(parseInput(updateSessionSchema, body ?? {}));
    return presentSession(await this.updateSession.execute(principal, sessionId, patch));
  }

  @Post(':id/events')
  @HttpCode(202)
  @RequireScopes('sessions:write')
  @ApiRoute({
    operationId: 'recordSessionEvents',
    tag: 'sessions',
    summary:
      'Capture a batch of events (stored at once, processed in the background; an event id already sent is not stored again)',
    params: sessionIdParams,
    body: recordEventsSchema,
    response: acceptedEventsResponse,
    rateLimit: 'events',
    errors: {
      404: NOT_YOURS,
      413: 'The request body is over the server’s body limit',
      422: 'Validation failed, or an event or the batch is over its size cap',
    },
  })
  async events(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const sessionId = toSessionId(id);
    const events = toNewEvents(parseInput(recordEventsSchema, body));
    const recorded = await this.recordEvents.execute(principal, sessionId, events);
    return { accepted: recorded.accepted, duplicates: recorded.duplicates, session_id: sessionId };
  }

  @Get(':id/timeline')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'getSessionTimeline',
    tag: 'sessions',
    summary: "The session's events around the time a memory was created, or the newest ones",
    params: sessionIdParams,
    query: timelineQuerySchema,
    response: timelineResponse,
    errors: { 404: `${NOT_YOURS}, or the memory in \`around\` is not visible to you` },
  })
  async getTimeline(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: unknown,
  ) {
    const sessionId = toSessionId(id);
    const result = await this.timeline.execute(
      principal,
      sessionId,
      parseInput(timelineQuerySchema, query, 400),
    );
    return { session_id: result.sessionId, around: result.around, events: result.events.map(presentEvent) };
  }
}
