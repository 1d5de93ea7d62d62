import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  isFinalAttempt,
  JOB_DEFINITIONS,
  JobHandlerRegistry,
  type JobContext,
  type JobHandler,
} from '@app/jobs';
import { IndexMemoryUseCase } from '@app/memories/application/index-memory.use-case';

/** `memory.index`: validate the payload, run the use case as the memory's owner. */
@Injectable()
export class MemoryIndexProcessor implements JobHandler, OnModuleInit {
  constructor(
    @Inject(JobHandlerRegistry) private readonly registry: JobHandlerRegistry,
    @Inject(IndexMemoryUseCase) private readonly indexMemory: IndexMemoryUseCase,
  ) {}

  onModuleInit(): void {
    this.registry.register('memory.index', this);
  }

  async handle(data: unknown, context: JobContext): Promise<void> {
    const payload = JOB_DEFINITIONS['memory.index'].parse(data);
    await this.indexMemory.execute({ tenantId: payload.tenantId, userId: payload.userId }, payload, {
      finalAttempt: isFinalAttempt(context),
    });
  }
}
