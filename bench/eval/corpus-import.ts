import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { type ImportMemoriesUseCase, type NewMemory } from '@app/memories';
import { waitUntilEmbedded } from '../indexing/wait-for-embeddings';
import type { BeirDocument, TurnMetadata } from './beir-dataset';

export interface ImportedCorpus {
  /** Memory id → the document ids stored as it (identical documents collapse into one memory). */
  readonly docsByMemory: ReadonlyMap<number, readonly string[]>;
  readonly skipped: number;
  readonly importMs: number;
  readonly indexMs: number;
}

/** The tag naming a turn's conversation session, so its neighbours can be found from it. */
export function threadTag(turn: TurnMetadata): string {
  // "s3", not "3": a bare session number would match numbers in questions through the tag index.
  return `thread:${turn.conversation}-s${turn.session}`;
}

/**
 * A BEIR document as an agent would store it: title and text as content. A conversation turn also
 * keeps when it was said (its session's date, a minute per turn so the order survives) and, unless
 * `threadTags` is false, a tag naming its session, as an agent that stores a chat turn by turn would.
 */
export function documentToMemory(doc: BeirDocument, threadTags = true): NewMemory {
  const memory: NewMemory = {
    content: doc.title.trim() === '' ? doc.text : `${doc.title}\n${doc.text}`,
    category: 'facts',
    tags: [],
    expandedKeywords: '',
    importance: 0.5,
    project: null,
  };
  if (!doc.turn) return memory;
  const said = new Date(Date.parse(doc.turn.date) + (doc.turn.turn - 1) * 60_000).toISOString();
  return { ...memory, tags: threadTags ? [threadTag(doc.turn)] : [], createdAt: said };
}

/**
 * Stores the corpus through ImportMemoriesUseCase (the API's import path: duplicate check, index
 * state, outbox) in batches the API accepts, then waits until the worker has embedded every
 * memory, so the vector leg sees the whole corpus.
 */
export async function importCorpus(options: {
  importer: ImportMemoriesUseCase;
  principal: Principal;
  documents: readonly BeirDocument[];
  batchSize: number;
  maxContentBytes: number;
  /** False: conversation turns are stored without their session's tag (threads by time alone). */
  threadTags?: boolean;
  pg: Client;
  modelId: string;
  log: (line: string) => void;
}): Promise<ImportedCorpus> {
  const docsByMemory = new Map<number, string[]>();
  const storable = options.documents.filter(
    (d) =>
      Buffer.byteLength(documentToMemory(d).content, 'utf8') <= options.maxContentBytes &&
      d.text.trim() !== '',
  );
  const started = performance.now();
  for (let i = 0; i < storable.length; i += options.batchSize) {
    const batch = storable.slice(i, i + options.batchSize);
    const stored = await options.importer.execute(
      options.principal,
      batch.map((d) => documentToMemory(d, options.threadTags ?? true)),
    );
    stored.forEach((s, j) => docsByMemory.set(s.id, [...(docsByMemory.get(s.id) ?? []), batch[j].id]));
    if (storable.length > 5000)
      options.log(`imported ${Math.min(i + options.batchSize, storable.length)} / ${storable.length}`);
  }
  const importMs = performance.now() - started;
  const indexMs = await waitUntilEmbedded(options.pg, {
    modelId: options.modelId,
    ids: [...docsByMemory.keys()],
    // Generous: a large public corpus with a transformer model can take a while on 2 cores.
    timeoutMs: Math.max(60_000, docsByMemory.size * 50),
    pollMs: 100,
  });
  // Steady-state plans: autovacuum would analyse the fresh tables a minute later; without
  // statistics the planner guesses one row and the vector leg's exact scan takes ~10× longer.
  await options.pg.query('ANALYZE memories, memory_embeddings, memory_index_state');
  return { docsByMemory, skipped: options.documents.length - storable.length, importMs, indexMs };
}
