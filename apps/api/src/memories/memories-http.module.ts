import { Module } from '@nestjs/common';
import { MemoriesModule } from '@app/memories';
import { MemoriesController } from './memories.controller';

@Module({ imports: [MemoriesModule], controllers: [MemoriesController] })
export class MemoriesHttpModule {}
