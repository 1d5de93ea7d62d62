import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { MemoryExportRepository } from './adapters/memory-export.repository';
import { ExportMemoriesUseCase } from './application/export-memories.use-case';

/** The export wing: a user's memories with their links and shares, streamed as JSON or NDJSON. */
@Module({
  imports: [TenancyModule],
  providers: [MemoryExportRepository, ExportMemoriesUseCase],
  exports: [ExportMemoriesUseCase],
})
export class MemoryExportModule {}
