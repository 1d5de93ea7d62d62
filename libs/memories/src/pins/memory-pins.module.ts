import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { MemoryReadModelModule } from '../read-model/memory-read-model.module';
import { PinRepository } from './adapters/pin.repository';
import { PinMemoryUseCase } from './application/pin-memory.use-case';
import { UnpinMemoryUseCase } from './application/unpin-memory.use-case';

const USE_CASES = [PinMemoryUseCase, UnpinMemoryUseCase];

/** The pins wing: personal and team pins, which put a memory first in the startup context. */
@Module({
  imports: [TenancyModule, MemoryReadModelModule],
  providers: [PinRepository, ...USE_CASES],
  exports: USE_CASES,
})
export class MemoryPinsModule {}
