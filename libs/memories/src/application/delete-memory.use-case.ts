import { Injectable } from '@nestjs/common';
import { type Principal } from '@app/tenancy';
import { MemoryWriter } from '../write/memory-writer';

/** `DELETE /api/memories/:id` and `memory_delete`: soft delete. Other ids are not found. */
@Injectable()
export class DeleteMemoryUseCase {
  constructor(private readonly writer: MemoryWriter) {}

  execute(principal: Principal, id: number): Promise<{ deleted: number; preview: string }> {
    return this.writer.delete(principal, id);
  }
}
