import { Module } from '@nestjs/common';
import { MemoryWriteModule } from '../write/memory-write.module';
import { CreateMemoryLinkUseCase } from './application/create-memory-link.use-case';
import { DeleteMemoryLinkUseCase } from './application/delete-memory-link.use-case';
import { GetMemoryLinksUseCase } from './application/get-memory-links.use-case';

const USE_CASES = [CreateMemoryLinkUseCase, DeleteMemoryLinkUseCase, GetMemoryLinksUseCase];

/** The links wing: typed edges between memories (the rules of making one live in the core's writer). */
@Module({
  imports: [MemoryWriteModule],
  providers: USE_CASES,
  exports: USE_CASES,
})
export class MemoryLinksModule {}
