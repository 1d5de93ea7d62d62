import { Controller, Get, Inject, Param } from '@nestjs/common';
import { adminJobResponseSchema, GetJobUseCase, toAdminJobResponse, type AdminJobResponse } from '@app/jobs';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';
import { jobIdParams } from '../openapi/route-schemas';

/** Progress of the caller's own long-running jobs (any key). Validate, call one use case, present. */
@Controller('jobs')
export class JobsController {
  constructor(@Inject(GetJobUseCase) private readonly getJob: GetJobUseCase) {}

  @Get(':id')
  @ApiRoute({
    operationId: 'getJob',
    tag: 'jobs',
    summary: 'Progress of a job you started (a transcript import); admins read any job of their tenant',
    params: jobIdParams,
    response: adminJobResponseSchema,
    errors: { 404: 'No such job of yours (another user’s jobs are never visible)' },
  })
  async job(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<AdminJobResponse> {
    return toAdminJobResponse(await this.getJob.execute(principal, id));
  }
}
