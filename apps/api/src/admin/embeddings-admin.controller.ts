import { Body, Controller, HttpCode, Inject, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { StartReindexUseCase } from '@app/embeddings';
import { reindexBody, reindexBodySchema, reindexResponseSchema, type ReindexResponse } from '@app/embeddings';
import { parseInput, type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';
import { adminJobLocation } from './admin-jobs.controller';

/**
 * Embedding model switch; its job is followed at `GET /api/admin/jobs/:id`. A reindex re-embeds every tenant's memories,
 * so in a multi-tenant install only operators should hold the admin scope.
 */
@Controller('admin')
@RequireScopes('admin')
export class EmbeddingsAdminController {
  constructor(@Inject(StartReindexUseCase) private readonly startReindex: StartReindexUseCase) {}

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
    responseDescription: 'Job queued; `Location` is /api/admin/jobs/{job_id}',
    errors: {
      409: 'A reindex to another model is unfinished',
      422: 'Invalid model id, or a model that cannot be loaded',
    },
  })
  async reindex(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ReindexResponse> {
    const job = await this.startReindex.execute(principal, parseInput(reindexBodySchema, body ?? {}));
    void reply.header('location', adminJobLocation(job.id));
    return { job_id: job.id };
  }
}
