import { Inject, Injectable, Logger } from '@nestjs/common';
import { HandlesJob, indexInputHash, isFinalAttempt, type JobContext, type JobPayload } from '@app/jobs';
import { TransactionRunner, type TenantScope, type Tx } from '@app/persistence';
import { type IndexableMemory, MemoryIndexStateRepository } from '../adapters/memory-index-state.repository';
import { EmbedMemoryStep } from './embed-memory.step';

/** The indexing work proper (EmbedMemoryStep); tests pass their own to inject failures. */
export interface MemoryIndexStep {
  run(scope: TenantScope, tx: Tx, memory: IndexableMemory): Promise<void>;
}

export type IndexMemoryOutcome = 'indexed' | 'already-indexed' | 'memory-gone';

export interface IndexMemoryOptions {
  /** No retry follows this attempt: a failure marks the state `failed`. */
  readonly finalAttempt?: boolean;
}

/**
 * `memory.index`: idempotent, because the queue delivers at least once and two workers may hold
 * the same memory. The state row lock serialises them; whoever comes second finds the current
 * input already indexed and does nothing.
 */
@Injectable()
export class IndexMemoryUseCase {
  private readonly logger = new Logger('IndexMemory');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryIndexStateRepository) private readonly states: MemoryIndexStateRepository,
    @Inject(EmbedMemoryStep) private readonly step: MemoryIndexStep,
  ) {}

  /** `memory.index`, run as the memory's owner. */
  @HandlesJob('memory.index')
  async onJob(payload: JobPayload<'memory.index'>, job: JobContext): Promise<void> {
    const scope = { tenantId: payload.tenantId, userId: payload.userId };
    await this.execute(scope, payload, { finalAttempt: isFinalAttempt(job) });
  }

  async execute(
    scope: TenantScope,
    payload: JobPayload<'memory.index'>,
    options: IndexMemoryOptions = {},
  ): Promise<IndexMemoryOutcome> {
    const { memoryId } = payload;
    try {
      return await this.tx.inTenant(scope, async (tx) => {
        // Lock order (docs/security.md): the memory row first, then its index state. An update
        // locks the row and then writes the state; taking them the other way round here deadlocked.
        const memory = await this.states.findIndexable(scope, tx, memoryId);
        if (!memory || memory.deleted) return 'memory-gone';
        let state = await this.states.lock(scope, tx, memoryId);
        // Compare with what the row holds now, not the payload's hash: a later edit may have
        // queued another job, and either job indexing the current input satisfies both.
        const currentHash = indexInputHash(memory);
        if (!state) {
          await this.states.ensure(scope, tx, memoryId, currentHash);
          state = await this.states.lock(scope, tx, memoryId);
        }
        if (state?.indexedHash === currentHash) {
          if (state.status !== 'indexed') await this.states.markUpToDate(scope, tx, memoryId);
          return 'already-indexed';
        }
        await this.step.run(scope, tx, memory);
        await this.states.markIndexed(scope, tx, memoryId, currentHash);
        return 'indexed';
      });
    } catch (error) {
      // The work's transaction rolled back; record the attempt in a fresh one, then let the queue retry.
      const message = error instanceof Error ? error.message : String(error);
      await this.tx
        .inTenant(scope, (tx) =>
          this.states.recordFailure(scope, tx, memoryId, message, options.finalAttempt ?? false),
        )
        .catch((recordError: unknown) =>
          this.logger.warn(`could not record index failure for memory ${memoryId}: ${String(recordError)}`),
        );
      throw error;
    }
  }
}
