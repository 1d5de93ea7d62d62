import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { verifiedAnchors, type TreeFacts } from '../../domain/anchor';
import type { StoredMemory } from '../../domain/memory';
import { MemoryError, MemoryErrorCode } from '../../domain/memory.errors';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { MemoryUpdate } from '../../write/memory-update';
import { MemoryWriter } from '../../write/memory-writer';

export interface VerifyInput {
  /** The memory no longer holds: this text replaces it (a proposal when the caller may not change it). */
  readonly correction?: string;
  /** The caller's tree: anchors on its listed paths take its blob ids. */
  readonly tree?: TreeFacts;
}

export type VerifyOutcome =
  | { readonly verified: number; readonly anchors: number }
  | { readonly corrected: number; readonly by: StoredMemory };

/**
 * `POST /api/memories/:id/verify`, MCP `memory_verify`: after the code a memory is anchored to
 * changed, someone confirms it still holds — its anchors then point at the code as it is now (stale
 * ones take the changed blob id and commit, orphaned ones go), a new version records it, and it is
 * current again — or corrects it: the correction supersedes it through the write path, as a proposal
 * for review when the caller may not change it, anchored to the code as it is now. 404 when the
 * caller cannot see the memory, 403 to confirm one they may not change, 409 without anchors.
 */
@Injectable()
export class VerifyMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly update: MemoryUpdate,
    private readonly writer: MemoryWriter,
  ) {}

  async execute(principal: Principal, id: number, input: VerifyInput = {}): Promise<VerifyOutcome> {
    const found = await this.tx.inTenant(principal, (tx) =>
      this.reads.findVisibleWithLinks(principal, tx, [id]),
    );
    const memory = found[0]?.memory;
    if (!memory) throw MemoryError.notFound(id);
    const anchors = memory.anchors ?? [];
    if (anchors.length === 0) {
      throw new MemoryError(
        MemoryErrorCode.NotAnchored,
        `Memory ${id} has no anchors: there is no code to verify it against`,
      );
    }
    const next = verifiedAnchors(anchors, input.tree);
    if (input.correction !== undefined) {
      const [by] = await this.writer.create(principal, [
        {
          content: input.correction,
          category: memory.category,
          tags: memory.tags,
          expandedKeywords: '',
          importance: memory.importance,
          project: memory.project,
          visibility: memory.visibility,
          supersedes: id,
          // The correction is of the same branch as what it corrects, until that branch is merged.
          ...(memory.branch !== undefined ? { branch: memory.branch } : {}),
          ...(next.length > 0 ? { anchors: next } : {}),
        },
      ]);
      return { corrected: id, by };
    }
    await this.update.apply(principal, id, { anchors: next }, { verifies: true });
    return { verified: id, anchors: next.length };
  }
}
