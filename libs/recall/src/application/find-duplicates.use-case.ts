import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryLookup } from '@app/memories';
import { VECTOR_RECALL, type VectorRecall } from '../ports/vector-recall.port';

/** How many of the caller's most recent memories are probed for a near neighbour. */
export const DUPLICATE_SCAN_CAP = 2000;
export const MAX_DUPLICATE_PAIRS = 500;

export interface DuplicatePair {
  readonly a: { id: number; content: string };
  readonly b: { id: number; content: string };
  readonly similarity: number;
}

export interface DuplicatesResult {
  readonly pairs: DuplicatePair[];
  readonly threshold: number;
  readonly scan_limit: number;
}

/** Near-duplicate pairs among the caller's own memories, most similar first (bounded scan). */
@Injectable()
export class FindDuplicatesUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    @Inject(VECTOR_RECALL) private readonly vectors: VectorRecall,
    private readonly memories: MemoryLookup,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute(
    principal: Principal,
    input: { threshold?: number; limit?: number },
  ): Promise<DuplicatesResult> {
    const threshold = input.threshold ?? this.config.dedup.noopThreshold;
    const limit = Math.min(Math.max(input.limit ?? 50, 1), MAX_DUPLICATE_PAIRS);
    const model = await this.vectors.activeModel();
    const result = { threshold, scan_limit: DUPLICATE_SCAN_CAP };
    if (!model) return { pairs: [], ...result };
    return this.tx.inTenant(principal, async (tx) => {
      const pairs = await this.vectors.nearDuplicatePairs(principal, tx, {
        model,
        threshold,
        limit,
        scanCap: DUPLICATE_SCAN_CAP,
      });
      const rows = await this.memories.findVisible(
        principal,
        tx,
        pairs.flatMap((p) => [p.firstId, p.secondId]),
      );
      const content = new Map(rows.map((m) => [m.id, m.content]));
      return {
        pairs: pairs
          .filter((p) => content.has(p.firstId) && content.has(p.secondId))
          .map((p) => ({
            a: { id: p.firstId, content: content.get(p.firstId) as string },
            b: { id: p.secondId, content: content.get(p.secondId) as string },
            similarity: p.similarity,
          })),
        ...result,
      };
    });
  }
}
