import { Injectable } from '@nestjs/common';
import { type Principal } from '@app/tenancy';
import type { MemoryPatch } from '../domain/memory';
import { MemoryWriter } from '../write/memory-writer';

/** `PUT /api/memories/:id` and `memory_update`: a change to one memory through the write path. */
@Injectable()
export class UpdateMemoryUseCase {
  constructor(private readonly writer: MemoryWriter) {}

  execute(principal: Principal, id: number, patch: MemoryPatch): Promise<{ updated: number }> {
    return this.writer.update(principal, id, patch);
  }
}
