import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { contentHash, MemoryLookup } from '@app/memories';
import { VECTOR_RECALL, type VectorRecall } from '../ports/vector-recall.port';
import { TeamDuplicateFinder } from './team-duplicate-finder';

export type CheckAction = 'ADD' | 'UPDATE' | 'NOOP';

export interface CheckResult {
  readonly action: CheckAction;
  readonly match?: { id: number; similarity: number; content: string };
}

/** Nearest own memories fetched; the first with a finite distance wins. */
const CANDIDATES = 3;

/**
 * Write guard for agents: before storing, ask whether the content is new (ADD), close to an
 * existing memory of the caller's that should be updated instead (UPDATE), or already known (NOOP):
 * the caller's own text, or a teammate's team memory with the same text or meaning (a store would
 * answer that memory).
 */
@Injectable()
export class CheckMemoryUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryLookup,
    @Inject(VECTOR_RECALL) private readonly vectors: VectorRecall,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly teamDuplicates: TeamDuplicateFinder,
  ) {}

  async execute(principal: Principal, content: string): Promise<CheckResult> {
    const query = await this.vectors.prepare(content);
    const hash = contentHash(content);
    return this.tx.inTenant(principal, async (tx) => {
      const exact = await this.memories.findLiveByHash(principal, tx, hash);
      if (exact) return { action: 'NOOP', match: { id: exact.id, similarity: 1, content: exact.content } };
      // A teammate's team memory that says the same: storing would answer it (one fact once per team).
      const near = query ? await this.teamDuplicates.near(principal, tx, query, content) : [];
      const team = await this.memories.findTeamDuplicate(
        principal,
        tx,
        hash,
        near.map((c) => c.id),
      );
      if (team) {
        const similarity = team.exact ? 1 : (near.find((c) => c.id === team.id)?.similarity ?? 1);
        return { action: 'NOOP', match: { id: team.id, similarity, content: team.content } };
      }
      if (!query) return { action: 'ADD' };
      // UPDATE names only the caller's own memories: a teammate's is theirs to update.
      const [best] = await this.vectors.nearestOwn(principal, tx, query, CANDIDATES);
      if (!best) return { action: 'ADD' };
      const [memory] = await this.memories.findVisible(principal, tx, [best.memoryId]);
      if (!memory) return { action: 'ADD' };
      const similarity = Math.max(0, Math.min(1, 1 - best.distance));
      const { noopThreshold, updateThreshold } = this.config.dedup;
      const action: CheckAction =
        similarity >= noopThreshold ? 'NOOP' : similarity >= updateThreshold ? 'UPDATE' : 'ADD';
      return { action, match: { id: memory.id, similarity, content: memory.content } };
    });
  }
}
