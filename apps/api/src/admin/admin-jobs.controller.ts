import { Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  adminJobRefParams,
  adminJobResponseSchema,
  adminJobsPageResponseSchema,
  CancelAdminJobUseCase,
  listAdminJobsQuery,
  listAdminJobsQuerySchema,
  ListAdminJobsUseCase,
  RetryAdminJobUseCase,
  ShowAdminJobUseCase,
  toAdminJobResponse,
  type AdminJobResponse,
} from '@app/jobs';
import { parseInput, type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';

/** Where a started job is followed: every 202 that queues one says so in `Location`. */
export const adminJobLocation = (id: string): string => `/api/admin/jobs/${encodeURIComponent(id)}`;

/**
 * The queue's jobs of the caller's tenant (reindex, secret migration, transcript imports, session
 * processing): list, read, retry a failed one, cancel one that has not started.
 */
@Controller('admin/jobs')
@RequireScopes('admin')
export class AdminJobsController {
  constructor(
    @Inject(ListAdminJobsUseCase) private readonly listJobs: ListAdminJobsUseCase,
    @Inject(ShowAdminJobUseCase) private readonly showJob: ShowAdminJobUseCase,
    @Inject(RetryAdminJobUseCase) private readonly retryJob: RetryAdminJobUseCase,
    @Inject(CancelAdminJobUseCase) private readonly cancelJob: CancelAdminJobUseCase,
  ) {}

  @Get()
  @ApiRoute({
    operationId: 'listAdminJobs',
    tag: 'admin',
    summary: 'Jobs of your tenant the queue holds, newest first, a page at a time',
    description:
      'Waiting, running, delayed (before a retry), completed and failed jobs whose payload names your tenant; ' +
      'system jobs (schedules, index batches) never show. The queue keeps finished jobs for a while only.',
    query: listAdminJobsQuery,
    response: adminJobsPageResponseSchema,
    errors: { 422: 'An unknown state or name, or a malformed limit or cursor', 503: 'Redis did not answer' },
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const page = await this.listJobs.execute(principal, parseInput(listAdminJobsQuerySchema, query ?? {}));
    return { jobs: page.items.map(toAdminJobResponse), next_cursor: page.nextCursor };
  }

  @Get(':id')
  @ApiRoute({
    operationId: 'getAdminJob',
    tag: 'admin',
    summary: 'A job of your tenant: name, state, progress, attempts, error and times',
    params: adminJobRefParams,
    response: adminJobResponseSchema,
    errors: { 404: 'No such job in this tenant' },
  })
  async job(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<AdminJobResponse> {
    return toAdminJobResponse(await this.showJob.execute(principal, id));
  }

  @Post(':id/retry')
  @HttpCode(202)
  @ApiRoute({
    operationId: 'retryAdminJob',
    tag: 'admin',
    summary: 'Queue a failed job again with its attempts reset (audited); Location names the job',
    params: adminJobRefParams,
    response: adminJobResponseSchema,
    responseDescription: 'Queued again',
    errors: { 404: 'No such job in this tenant', 409: 'The job has not failed' },
  })
  async retry(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AdminJobResponse> {
    const job = await this.retryJob.execute(principal, id);
    void reply.header('location', adminJobLocation(job.id));
    return toAdminJobResponse(job);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiRoute({
    operationId: 'cancelAdminJob',
    tag: 'admin',
    summary: 'Drop a job that has not started (waiting, or delayed before a retry); audited',
    params: adminJobRefParams,
    response: adminJobResponseSchema,
    responseDescription: 'Cancelled (`state: "cancelled"`); the queue forgets it',
    errors: { 404: 'No such job in this tenant', 409: 'The job is running or finished' },
  })
  async cancel(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<AdminJobResponse> {
    return toAdminJobResponse(await this.cancelJob.execute(principal, id));
  }
}
