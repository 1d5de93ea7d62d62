import { Injectable } from '@nestjs/common';
import { type Principal } from '@app/tenancy';
import { MemoryWriter } from '../write/memory-writer';

/** `POST /api/memories/:id/restore`: undoes a soft delete (a live memory answers 200 too). */
@Injectable()
export class RestoreMemoryUseCase {
  constructor(private readonly writer: MemoryWriter) {}

  execute(principal: Principal, id: number): Promise<{ restored: number }> {
    return this.writer.restore(principal, id);
  }
}
