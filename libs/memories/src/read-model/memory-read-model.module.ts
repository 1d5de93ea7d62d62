import { Module } from '@nestjs/common';
import { MemoryLookup } from './memory-lookup.port';
import { MemoryReadRepository } from './memory-read.repository';

/**
 * The core's read side: the one way other code (the wings, recall, sync, sessions) reads memories.
 * Needs the global PersistenceModule.
 */
@Module({
  providers: [MemoryReadRepository, { provide: MemoryLookup, useExisting: MemoryReadRepository }],
  exports: [MemoryReadRepository, MemoryLookup],
})
export class MemoryReadModelModule {}
