import { Module } from '@nestjs/common';
import { MemoryIndexStateRepository } from '@app/memories/adapters/memory-index-state.repository';
import { IndexMemoryUseCase } from '@app/memories/application/index-memory.use-case';
import { MemoryIndexProcessor } from './memory-index.processor';

/**
 * Every job handler. The worker imports it; the API imports it too in embedded mode, where the
 * in-process queue runs the same handlers. Needs JobsModule (global) and PersistenceModule.
 */
@Module({
  providers: [MemoryIndexStateRepository, IndexMemoryUseCase, MemoryIndexProcessor],
})
export class ProcessorsModule {}
