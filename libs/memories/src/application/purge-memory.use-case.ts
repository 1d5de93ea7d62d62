import { Injectable } from '@nestjs/common';
import { type Principal } from '@app/tenancy';
import { MemoryWriter } from '../write/memory-writer';

/** `DELETE /api/memories/:id/purge`: permanent removal of a soft-deleted memory. */
@Injectable()
export class PurgeMemoryUseCase {
  constructor(private readonly writer: MemoryWriter) {}

  execute(principal: Principal, id: number): Promise<{ purged: number }> {
    return this.writer.purge(principal, id);
  }
}
