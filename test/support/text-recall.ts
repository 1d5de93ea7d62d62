import { CreateMemoryUseCase, type NewMemory } from '@app/memories';
import { MemoryReadRepository } from '@app/memories/testing';
import { type TransactionRunner } from '@app/persistence';
import { RecallMemoriesUseCase, type RecallOptions, type VectorRecall } from '@app/recall';
import {
  buildTextIndexLeg,
  buildTextLeg,
  RecallCandidateRepository,
  LexiconSource,
  RecallLinks,
  type TextLeg,
} from '@app/recall/testing';
import type { TenantScope } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { newMemory } from '@app/testing';
import { memoryWriterFor } from './memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };

/** A vector leg that must not run: recall over the text leg alone. */
export const NO_VECTORS: VectorRecall = {
  prepare: () => Promise.reject(new Error('the text leg alone runs here')),
  activeModel: () => Promise.reject(new Error('the text leg alone runs here')),
  search: () => Promise.resolve([]),
  nearestOwn: () => Promise.reject(new Error('the text leg alone runs here')),
  nearDuplicatePairs: () => Promise.reject(new Error('the text leg alone runs here')),
};

/** Recall wired by hand as Nest wires it, without a vector leg (text leg: Postgres's unless given). */
export function textLegRecall(
  tx: TransactionRunner,
  options: RecallOptions,
  leg: TextLeg = buildTextLeg(tx),
  lexicon?: LexiconSource,
): RecallMemoriesUseCase {
  return new RecallMemoriesUseCase(
    tx,
    leg,
    NO_VECTORS,
    new RecallCandidateRepository(),
    new RecallLinks(new MemoryReadRepository()),
    options,
    lexicon,
  );
}

/** The relevance floor's lexicon as the service reads it (the install's models folder). */
export const installedLexicon = () => new LexiconSource(process.env.MODELS_DIR ?? 'models');

/** Stores memories through the create use case, team-visible unless the fields say otherwise. */
export function teamMemoryStore(tx: TransactionRunner) {
  // Built on the first store (the caller's setup may be synchronous).
  let create: Promise<CreateMemoryUseCase> | undefined;
  return async (who: Principal, content: string, fields: Partial<NewMemory> = {}) => {
    create ??= memoryWriterFor(tx, limits, undefined, { defaultVisibility: 'team' }).then(
      (writer) => new CreateMemoryUseCase(writer),
    );
    return (await (await create).execute(who, newMemory(content, fields))).id;
  };
}

/** Where a test's text leg runs: Postgres alone, or each tenant's in-memory index (the API's default). */
export type TextLegKind = 'postgres' | 'index';

/**
 * A text leg of that kind, and `warm` to load a tenant's index before asking (a no-op for
 * Postgres); recall then serves from the index and brings it up to date at each call.
 */
export function textLegOf(
  tx: TransactionRunner,
  kind: TextLegKind,
): { leg: TextLeg; warm: (scope: TenantScope) => Promise<boolean> } {
  if (kind === 'postgres') return { leg: buildTextLeg(tx), warm: () => Promise.resolve(true) };
  const { leg, registry } = buildTextIndexLeg(tx, { maxBytes: 16 * 1024 * 1024 });
  return { leg, warm: (scope) => registry.warm(scope) };
}
