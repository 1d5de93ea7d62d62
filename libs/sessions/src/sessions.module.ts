import { Module } from '@nestjs/common';
import { MemoriesModule } from '@app/memories';
import { StartupContextRepository } from './adapters/startup-context.repository';
import { StartupContextUseCase } from './application/startup-context.use-case';

const USE_CASES = [StartupContextUseCase];

/** Agent sessions: for now the startup context a session begins with. */
@Module({
  imports: [MemoriesModule],
  providers: [StartupContextRepository, ...USE_CASES],
  exports: USE_CASES,
})
export class SessionsModule {}
