import { Module } from '@nestjs/common';
import { MemoriesModule } from '@app/memories';
import { MemoriesController } from './memories.controller';
import { MemorySearchController } from './memory-search.controller';

@Module({ imports: [MemoriesModule], controllers: [MemorySearchController, MemoriesController] })
export class MemoriesHttpModule {}
