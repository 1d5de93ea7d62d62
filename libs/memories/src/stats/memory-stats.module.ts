import { Module } from '@nestjs/common';
import { MemoryStatsRepository } from './adapters/memory-stats.repository';
import {
  GetMemoryActivityUseCase,
  GetMemoryStatsUseCase,
  ListMemoryFacetsUseCase,
} from './application/get-memory-stats.use-case';

const USE_CASES = [GetMemoryStatsUseCase, GetMemoryActivityUseCase, ListMemoryFacetsUseCase];

/** The stats wing: counts by category, tag, project and author, and activity over time. */
@Module({ providers: [MemoryStatsRepository, ...USE_CASES], exports: USE_CASES })
export class MemoryStatsModule {}
