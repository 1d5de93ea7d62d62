import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { toAdminJobResponse, type AdminJobResponse } from '@app/jobs';
import { GetAdminJobUseCase } from '@app/jobs';
import { StartReindexUseCase } from '@app/embeddings';
import { reindexBodySchema, type ReindexResponse } from '@app/embeddings';
import { parseInput, type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';

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
  async reindex(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<ReindexResponse> {
    const job = await this.startReindex.execute(principal, parseInput(reindexBodySchema, body ?? {}));
    return { job_id: job.id };
  }

  @Get('jobs/:id')
  async job(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<AdminJobResponse> {
    return toAdminJobResponse(await this.getJob.execute(principal, id));
  }
}
