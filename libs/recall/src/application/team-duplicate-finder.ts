import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { TransactionRunner, type Tx } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import {
  MemoryLookup,
  restates,
  TeamDuplicateProbeSlot,
  type NearDuplicateCandidate,
  type ProbeOptions,
  type TeamDuplicateProbe,
} from '@app/memories';
import { VECTOR_RECALL, type PreparedQuery, type VectorRecall } from '../ports/vector-recall.port';

/** Nearest memories the caller can read that are weighed; the writer keeps teammates' team rows. */
const CANDIDATES = 8;

/**
 * Team memories that say what a text says: the caller's readable memories nearest the text's
 * embedding whose similarity reaches the NOOP threshold (`DEDUP_NOOP_THRESHOLD`, the one
 * `memory_check` answers NOOP with) and that the text restates in nearly the same words (`restates`:
 * no changed negation or number), most similar first. The write path keeps only teammates' live
 * team memories among them; a store of the caller's own near-copy is left to `memory_check`.
 */
@Injectable()
export class TeamDuplicateFinder implements TeamDuplicateProbe, OnModuleInit {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly memories: MemoryLookup,
    @Inject(VECTOR_RECALL) private readonly vectors: VectorRecall,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly slot: TeamDuplicateProbeSlot,
  ) {}

  /** Plugs this probe into memories' write path (which cannot import recall). */
  onModuleInit(): void {
    this.slot.fill(this);
  }

  async candidates(principal: Principal, content: string): Promise<NearDuplicateCandidate[]> {
    const [near] = await this.candidatesOfEach(principal, [content]);
    return near ?? [];
  }

  async candidatesOfEach(
    principal: Principal,
    contents: readonly string[],
    options: ProbeOptions = {},
  ): Promise<NearDuplicateCandidate[][]> {
    if (contents.length === 0) return [];
    // No teammate's team memory yet (a single user, an import into an empty tenant): nothing to embed.
    const teammates =
      options.teammates === true ||
      (await this.tx.inTenant(principal, (tx) =>
        this.memories.teammatesShareMemories(principal, tx, { last: true }),
      ));
    if (!teammates) return contents.map(() => []);
    // Asked together, the texts reach the embedder's micro-batcher together: one model run per batch.
    const queries = await Promise.all(contents.map((content) => this.vectors.prepare(content)));
    if (queries.every((query) => query === null)) return contents.map(() => []);
    // Planned once per connection, as recall's: planning the vector search's visibility branches
    // under the memories policies costs about ten times running them (6.8 ms against 0.7 ms).
    return this.tx.inTenant(
      principal,
      async (tx) => {
        const found: NearDuplicateCandidate[][] = [];
        for (const [i, query] of queries.entries()) {
          found.push(query ? await this.near(principal, tx, query, contents[i]) : []);
        }
        return found;
      },
      { genericPlans: true },
    );
  }

  /** `candidates` for `content` already embedded as `query`, inside the caller's transaction. */
  async near(
    principal: Principal,
    tx: Tx,
    query: PreparedQuery,
    content: string,
  ): Promise<NearDuplicateCandidate[]> {
    const hits = await this.vectors.search(principal, tx, query, { k: CANDIDATES, filter: {} });
    const threshold = this.config.dedup.noopThreshold;
    const close = hits
      .map((h) => ({ id: h.memoryId, similarity: Math.max(0, Math.min(1, 1 - h.distance)) }))
      .filter((c) => c.similarity >= threshold);
    if (close.length === 0) return [];
    const texts = new Map(
      (
        await this.memories.findVisible(
          principal,
          tx,
          close.map((c) => c.id),
        )
      ).map((m) => [m.id, m.content]),
    );
    // Close in meaning and in words: the embedding alone scores a statement's opposite as close.
    return close.filter((c) => restates(content, texts.get(c.id) ?? ''));
  }
}
