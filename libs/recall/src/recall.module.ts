import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { EmbeddingsModule } from '@app/embeddings';
import { MemoriesModule } from '@app/memories';
import { MemoryNeighbourRepository } from './adapters/memory-neighbour.repository';
import { RecallCandidateRepository } from './adapters/recall-candidate.repository';
import { MemoryTextSearchRepository, TEXT_SEARCH_OPTIONS } from './adapters/memory-text-search.repository';
import { MEMORY_VECTOR_OPTIONS, MemoryVectorRepository } from './adapters/memory-vector.repository';
import { TextIndexFeedRepository } from './adapters/text-index-feed.repository';
import { LexiconSource } from './adapters/lexicon-source';
import { VectorRecallAdapter } from './adapters/vector-recall.adapter';
import { CheckMemoryUseCase } from './application/check-memory.use-case';
import { FindDuplicatesUseCase } from './application/find-duplicates.use-case';
import { TeamDuplicateFinder } from './application/team-duplicate-finder';
import { RecallLinks } from './application/recall-links';
import { TextLeg } from './application/text-leg';
import {
  DEFAULT_TEXT_INDEX_OPTIONS,
  TEXT_INDEX_OPTIONS,
  TextIndexRegistry,
  type TextIndexOptions,
} from './application/text-index-registry';
import {
  RECALL_OPTIONS,
  RecallMemoriesUseCase,
  type RecallOptions,
} from './application/recall-memories.use-case';
import { VECTOR_RECALL } from './ports/vector-recall.port';

const USE_CASES = [RecallMemoriesUseCase, CheckMemoryUseCase, FindDuplicatesUseCase];

/**
 * Finding memories: hybrid recall (text and vector legs fused), the write guard `check` and
 * near-duplicate pairs. Reads memories through MemoriesModule's MemoryLookup and embeds queries
 * through EmbeddingsModule's QueryEmbedder.
 *
 * Its `TeamDuplicateFinder` fills memories' `TeamDuplicateProbeSlot` when the module starts, so the
 * write path (which recall builds on, and cannot import) folds a teammate's fact said again in nearly
 * the same words into the existing team memory. A process without recall (the CLI) folds same-text
 * repeats only.
 */
@Module({
  imports: [MemoriesModule, EmbeddingsModule],
  providers: [
    {
      provide: TEXT_SEARCH_OPTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => config.recall.bm25,
    },
    MemoryTextSearchRepository,
    TextIndexFeedRepository,
    {
      provide: TEXT_INDEX_OPTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): TextIndexOptions => ({
        ...DEFAULT_TEXT_INDEX_OPTIONS,
        maxBytes: config.recall.textIndexBytes,
        vectorMaxBytes: config.recall.vectorIndexBytes,
        freshMs: config.recall.indexFreshMs,
      }),
    },
    TextIndexRegistry,
    TextLeg,
    MemoryNeighbourRepository,
    RecallCandidateRepository,
    {
      provide: MEMORY_VECTOR_OPTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ exactScanMaxRows: config.embeddings.exactScanMaxRows }),
    },
    MemoryVectorRepository,
    {
      provide: RECALL_OPTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RecallOptions => ({
        projectBoost: config.recall.projectBoost,
        fusion: config.recall.fusion,
        unmatchedVectorFloor: config.recall.unmatchedVectorFloor,
        floor: config.recall.floor,
      }),
    },
    {
      provide: LexiconSource,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new LexiconSource(config.embeddings.modelsDir),
    },
    VectorRecallAdapter,
    { provide: VECTOR_RECALL, useExisting: VectorRecallAdapter },
    RecallLinks,
    TeamDuplicateFinder,
    ...USE_CASES,
  ],
  exports: USE_CASES,
})
export class RecallModule {}
