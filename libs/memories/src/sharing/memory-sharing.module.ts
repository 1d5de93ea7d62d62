import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { MemoryReadModelModule } from '../read-model/memory-read-model.module';
import { ShareRepository } from './adapters/share.repository';
import { ListMySharesUseCase, ListSharedWithMeUseCase } from './application/list-shares.use-case';
import { ShareMemoryUseCase } from './application/share-memory.use-case';
import { ShareTagUseCase } from './application/share-tag.use-case';
import { UnshareMemoryUseCase } from './application/unshare-memory.use-case';
import { UnshareTagUseCase } from './application/unshare-tag.use-case';

const USE_CASES = [
  ShareMemoryUseCase,
  UnshareMemoryUseCase,
  ShareTagUseCase,
  UnshareTagUseCase,
  ListSharedWithMeUseCase,
  ListMySharesUseCase,
];

/** The sharing wing: memory and tag shares, and the lists of them. */
@Module({
  imports: [TenancyModule, MemoryReadModelModule],
  providers: [ShareRepository, ...USE_CASES],
  exports: USE_CASES,
})
export class MemorySharingModule {}
