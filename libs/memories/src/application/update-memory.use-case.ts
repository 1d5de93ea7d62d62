import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryRepository } from '../adapters/memory.repository';
import { contentHash } from '../domain/content-rules';
import type { MemoryPatch } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MemoryWriter } from './memory-writer';

@Injectable()
export class UpdateMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryRepository,
    private readonly writer: MemoryWriter,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, id: number, patch: MemoryPatch): Promise<{ updated: number }> {
    const fields = Object.keys(patch).filter((k) => patch[k as keyof MemoryPatch] !== undefined);
    if (fields.length === 0) throw new MemoryError(MemoryErrorCode.NoFieldsToUpdate, 'No fields to update');
    return this.tx.inTenant(principal, async (tx) => {
      const current = await this.memories.lockOwned(principal, tx, id);
      if (!current || current.deleted) throw MemoryError.notFound(id);
      const existing = await this.memories.findLive(principal, tx, id);
      if (!existing) throw MemoryError.notFound(id);
      const next = {
        content: patch.content ?? existing.content,
        category: patch.category ?? existing.category,
        tags: patch.tags ?? existing.tags,
        expandedKeywords: patch.expandedKeywords ?? existing.expandedKeywords,
        importance: patch.importance ?? existing.importance,
        project: existing.project,
      };
      this.writer.assertValid(next);
      let hash: Buffer | undefined;
      if (patch.content !== undefined) {
        hash = contentHash(patch.content);
        const duplicate = await this.memories.hasLiveDuplicate(principal, tx, id, hash);
        if (duplicate !== null) {
          throw new MemoryError(
            MemoryErrorCode.DuplicateContent,
            `Memory ${duplicate} already has this content`,
          );
        }
      }
      await this.memories.update(principal, tx, id, { ...patch, contentHash: hash });
      if (patch.content !== undefined || patch.tags !== undefined || patch.expandedKeywords !== undefined) {
        await this.writer.scheduleIndexing(principal, tx, id, next);
      }
      await this.audit.record(principal, tx, {
        action: 'memory.update',
        targetType: 'memory',
        targetId: id,
        details: { fields },
      });
      return { updated: id };
    });
  }
}
