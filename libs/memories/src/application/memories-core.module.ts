import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { TenancyModule } from '@app/tenancy';
import { MemoryUsageRepository } from '../adapters/memory-usage.repository';
import { TextStatisticsRepository } from '../adapters/text-statistics.repository';
import { UserDataRepository } from '../adapters/user-data.repository';
import { MemoryWriteModule } from '../write/memory-write.module';
import { BulkDeleteMemoriesUseCase } from './bulk-delete-memories.use-case';
import { CountMemoriesUseCase } from './count-memories.use-case';
import { CreateMemoryUseCase } from './create-memory.use-case';
import { DeleteMemoryUseCase } from './delete-memory.use-case';
import { DeleteUserUseCase } from './delete-user.use-case';
import { EraseUserDataUseCase } from './erase-user-data.use-case';
import { ExpireMemoriesUseCase } from './expire-memories.use-case';
import { FoldMemoryUsageUseCase } from './fold-memory-usage.use-case';
import { FoldTextStatisticsUseCase } from './fold-text-statistics.use-case';
import { GetMemoryUseCase } from './get-memory.use-case';
import { ImportMemoriesUseCase } from './import-memories.use-case';
import { ListMemoriesUseCase } from './list-memories.use-case';
import { PurgeMemoryUseCase } from './purge-memory.use-case';
import { RestoreMemoryUseCase } from './restore-memory.use-case';
import { UpdateMemoryUseCase } from './update-memory.use-case';

const USE_CASES = [
  CreateMemoryUseCase,
  ListMemoriesUseCase,
  GetMemoryUseCase,
  UpdateMemoryUseCase,
  DeleteMemoryUseCase,
  RestoreMemoryUseCase,
  PurgeMemoryUseCase,
  BulkDeleteMemoriesUseCase,
  ImportMemoriesUseCase,
  CountMemoriesUseCase,
  ExpireMemoriesUseCase,
  FoldTextStatisticsUseCase,
  FoldMemoryUsageUseCase,
  EraseUserDataUseCase,
  DeleteUserUseCase,
];

/**
 * The core's use cases: memory CRUD, import, expiry, the statistics and usage folds, and a user's
 * erasure. Re-exports the write side (and through it the read model), which the wings import.
 */
@Module({
  imports: [JobsModule, TenancyModule, MemoryWriteModule],
  providers: [TextStatisticsRepository, MemoryUsageRepository, UserDataRepository, ...USE_CASES],
  exports: [MemoryWriteModule, ...USE_CASES],
})
export class MemoriesCoreModule {}
