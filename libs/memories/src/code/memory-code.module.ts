import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { MemoryWriteModule } from '../write/memory-write.module';
import { CodeEventRepository } from './adapters/code-event.repository';
import { ApplyCodeEventUseCase } from './application/apply-code-event.use-case';
import { GetCodeEventUseCase } from './application/get-code-event.use-case';
import { PurgeCodeEventsUseCase } from './application/purge-code-events.use-case';
import { RecordCodeEventUseCase } from './application/record-code-event.use-case';
import { VerifyMemoryUseCase } from './application/verify-memory.use-case';

const USE_CASES = [
  RecordCodeEventUseCase,
  GetCodeEventUseCase,
  ApplyCodeEventUseCase,
  PurgeCodeEventsUseCase,
  VerifyMemoryUseCase,
];

/**
 * The code wing: code events (what changed in a repository, as hooks and CI report it), the job
 * that turns them into anchor states (stale, orphaned, moved), and verify (a memory confirmed or
 * corrected against the code as it is now). Anchors themselves are written by the core's write path.
 */
@Module({
  imports: [JobsModule, MemoryWriteModule],
  providers: [CodeEventRepository, ...USE_CASES],
  exports: USE_CASES,
})
export class MemoryCodeModule {}
