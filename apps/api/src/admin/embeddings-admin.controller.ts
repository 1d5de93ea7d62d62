import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { adminJobResponseSchema, toAdminJobResponse, type AdminJobResponse } from '@app/jobs';
import { GetAdminJobUseCase } from '@app/jobs';
import { StartReindexUseCase } from '@app/embeddings';
import { reindexBody, reindexBodySchema, reindexResponseSchema, type ReindexResponse } from '@app/embeddings';
import { parseInput, type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';
import { jobIdParams } from '../openapi/route-schemas';

/**
 * Embedding model switch and admin job progress. A reindex re-embeds every tenant's memories,
 * so in a multi-tenant install only operators should hold the admin scope.
 */
@Controller('admin')
@RequireScopes('admin')
export class EmbeddingsAdminController {
  constructor(
    @Inject(StartReindexUseCase) private readonly startReindex: StartReindexUseCase,
    @Inject(GetAdminJobUseCase) private readonly getJob: GetAdminJobUseCase,
  ) {}

  @Post('embeddings/reindex')
  @HttpCode(202)
  @ApiRoute({
    operationId: 'startReindex',
    tag: 'embeddings',
    summary: 'Embed every memory (all tenants) with a model, then make it the read model',
    description:
      'Registers the model as filling (recall keeps using the current one), queues a resumable job, and ' +
      'answers at once. Poll the job for progress. Only operators should hold the admin scope in a ' +
      'multi-tenant install: the job re-embeds every tenant’s memories.',
    body: reindexBody,
    response: reindexResponseSchema,
    responseDescription: 'Job queued',
    errors: {
      409: 'A reindex to another model is unfinished',
      422: 'Invalid model id, or a model that cannot be loaded',
    },
  })
  async reindex(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<ReindexResponse> {
    const job = await this.startReindex.execute(principal, parseInput(reindexBodySchema, body ?? {}));
    return { job_id: job.id };
  }

  @Get('jobs/:id')
  @ApiRoute({
    operationId: 'getAdminJob',
    tag: 'admin',
    summary: 'Progress of an admin job (reindex, secret migration) of the caller’s tenant',
    params: jobIdParams,
    response: adminJobResponseSchema,
    errors: { 404: 'No such job in this tenant' },
  })
  async job(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<AdminJobResponse> {
    return toAdminJobResponse(await this.getJob.execute(principal, id));
  }
}
