import { Injectable } from '@nestjs/common';
import { type Principal } from '@app/tenancy';
import type { NewMemory, StoredMemory } from '../domain/memory';
import { MemoryWriter } from '../write/memory-writer';

export interface CreateMemoryOptions {
  /** Client-chosen key: the same key with the same body returns the first response. */
  readonly idempotencyKey?: string;
}

/** `POST /api/memories` and `memory_store`: one new memory through the write path. */
@Injectable()
export class CreateMemoryUseCase {
  constructor(private readonly writer: MemoryWriter) {}

  async execute(
    principal: Principal,
    input: NewMemory,
    options: CreateMemoryOptions = {},
  ): Promise<StoredMemory> {
    const [stored] = await this.writer.create(principal, [input], { idempotencyKey: options.idempotencyKey });
    return stored;
  }
}
