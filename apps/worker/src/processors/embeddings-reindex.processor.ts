import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  isFinalAttempt,
  JOB_DEFINITIONS,
  JobHandlerRegistry,
  type JobContext,
  type JobHandler,
} from '@app/jobs';
import { RunReindexUseCase } from '@app/memories/application/run-reindex.use-case';

/** `embeddings.reindex`: validate the payload, run the (system-wide, resumable) reindex. */
@Injectable()
export class EmbeddingsReindexProcessor implements JobHandler, OnModuleInit {
  constructor(
    @Inject(JobHandlerRegistry) private readonly registry: JobHandlerRegistry,
    @Inject(RunReindexUseCase) private readonly reindex: RunReindexUseCase,
  ) {}

  onModuleInit(): void {
    this.registry.register('embeddings.reindex', this);
  }

  async handle(data: unknown, context: JobContext): Promise<void> {
    const payload = JOB_DEFINITIONS['embeddings.reindex'].parse(data);
    await this.reindex.execute(payload, { finalAttempt: isFinalAttempt(context) });
  }
}
