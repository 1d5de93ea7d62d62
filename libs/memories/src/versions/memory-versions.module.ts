import { Module } from '@nestjs/common';
import { MemoryWriteModule } from '../write/memory-write.module';
import { MemoryVersionRepository } from './adapters/memory-version.repository';
import { DiffMemoryVersionsUseCase } from './application/diff-memory-versions.use-case';
import { GetMemoryVersionUseCase } from './application/get-memory-version.use-case';
import { ListMemoryVersionsUseCase } from './application/list-memory-versions.use-case';
import { RestoreMemoryVersionUseCase } from './application/restore-memory-version.use-case';

const USE_CASES = [
  ListMemoryVersionsUseCase,
  GetMemoryVersionUseCase,
  DiffMemoryVersionsUseCase,
  RestoreMemoryVersionUseCase,
];

/**
 * The versions wing: reading a memory's earlier versions, diffs between them, and restoring one
 * (through the core's update). The core's write path records them.
 */
@Module({
  imports: [MemoryWriteModule],
  providers: [MemoryVersionRepository, ...USE_CASES],
  exports: USE_CASES,
})
export class MemoryVersionsModule {}
