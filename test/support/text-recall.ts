import { CreateMemoryUseCase, type NewMemory } from '@app/memories';
import { IdempotencyRepository, MemoryRepository } from '@app/memories/testing';
import { type TransactionRunner } from '@app/persistence';
import { RecallMemoriesUseCase, type RecallOptions, type VectorRecall } from '@app/recall';
import { buildTextLeg, RecallCandidateRepository, RecallLinks } from '@app/recall/testing';
import { type Principal } from '@app/tenancy';
import { newMemory } from '@app/testing';
import { memoryWriterFor } from './memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };

/** A vector leg that must not run: recall over the text leg alone. */
export const NO_VECTORS: VectorRecall = {
  prepare: () => Promise.reject(new Error('the text leg alone runs here')),
  search: () => Promise.resolve([]),
};

/** Recall wired by hand as Nest wires it, without a vector leg. */
export function textLegRecall(tx: TransactionRunner, options: RecallOptions): RecallMemoriesUseCase {
  return new RecallMemoriesUseCase(
    tx,
    buildTextLeg(tx),
    NO_VECTORS,
    new RecallCandidateRepository(),
    new RecallLinks(new MemoryRepository()),
    options,
  );
}

/** Stores memories through the create use case, team-visible unless the fields say otherwise. */
export function teamMemoryStore(tx: TransactionRunner) {
  const writer = memoryWriterFor(tx, limits, undefined, new MemoryRepository(), {
    defaultVisibility: 'team',
  });
  const create = new CreateMemoryUseCase(tx, writer, new IdempotencyRepository());
  return async (who: Principal, content: string, fields: Partial<NewMemory> = {}) =>
    (await create.execute(who, newMemory(content, fields))).id;
}
