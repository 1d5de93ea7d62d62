import { Inject, Injectable } from '@nestjs/common';
import type { Tx } from '@app/persistence';
import { OutboxWriter } from '@app/jobs';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryRepository } from '../adapters/memory.repository';
import { assertContentSize, contentHash } from '../domain/content-rules';
import { indexInputHash } from '../domain/index-input';
import type { NewMemory, StoredMemory } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MEMORY_LIMITS, type MemoryLimits } from './memory-limits';

/**
 * The one write path for new memories (store and import): size rule, duplicate check, and the
 * index job recorded in the same transaction as the row.
 */
@Injectable()
export class MemoryWriter {
  constructor(
    private readonly memories: MemoryRepository,
    private readonly outbox: OutboxWriter,
    private readonly audit: AuditWriter,
    @Inject(MEMORY_LIMITS) private readonly limits: MemoryLimits,
  ) {}

  assertValid(memory: NewMemory): void {
    assertContentSize(memory.content, this.limits.maxContentBytes);
    if (memory.forceSensitive) {
      // No secret store is configured in this release: refuse rather than keep a secret in clear.
      throw new MemoryError(
        MemoryErrorCode.SecretStoreUnavailable,
        'force_sensitive needs a secret store (Vault or MEMORY_ENCRYPTION_KEY), which is not available; nothing was stored',
      );
    }
  }

  async store(principal: Principal, tx: Tx, memory: NewMemory): Promise<StoredMemory & { created: boolean }> {
    this.assertValid(memory);
    const stored = await this.memories.insertOrGetDuplicate(principal, tx, {
      ...memory,
      contentHash: contentHash(memory.content),
    });
    if (stored.created) {
      await this.scheduleIndexing(principal, tx, stored.id, memory);
      await this.audit.record(principal, tx, {
        action: 'memory.create',
        targetType: 'memory',
        targetId: stored.id,
      });
    }
    return stored;
  }

  async scheduleIndexing(
    principal: Principal,
    tx: Tx,
    memoryId: number,
    input: { content: string; expandedKeywords: string; tags: readonly string[] },
  ): Promise<void> {
    const hash = indexInputHash(input);
    await this.memories.markIndexPending(principal, tx, memoryId, hash);
    await this.outbox.enqueue(principal, tx, {
      name: 'memory.index',
      payload: {
        tenantId: principal.tenantId,
        userId: principal.userId,
        memoryId: String(memoryId),
        contentHash: hash,
        requestId: principal.requestId,
      },
      requestId: principal.requestId,
    });
  }
}
