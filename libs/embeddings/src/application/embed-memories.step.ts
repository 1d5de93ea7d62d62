import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EmbeddingWrite } from '../adapters/memory-embedding.repository';
import { assertSameDimensions, type EmbeddingModel } from '../domain/embedding-model';
import { errorText } from '../domain/embedding.errors';
import { EMBEDDER_PROVIDER, type Embedder, type EmbedderProvider } from '../ports/embedder.port';

/** A memory whose index input changed: the text to embed and what each model stores now. */
export interface MemoryToEmbed {
  readonly id: string;
  readonly text: string;
  readonly inputHash: Buffer;
  /** model id → hex input hash of the stored vector. */
  readonly stored: ReadonlyMap<string, string>;
}

export interface EmbeddedMemories {
  readonly writes: readonly { readonly model: EmbeddingModel; readonly rows: readonly EmbeddingWrite[] }[];
  /** memory id → why the read model could not embed it. */
  readonly failures: ReadonlyMap<string, string>;
}

/** The model part of indexing (EmbedMemoriesStep); tests pass their own to inject failures. */
export interface MemoryIndexStep {
  embed(models: readonly EmbeddingModel[], memories: readonly MemoryToEmbed[]): Promise<EmbeddedMemories>;
}

/**
 * Embeds a batch of memories' (redacted) index inputs with every writable model — the read model
 * and any model a reindex is filling, so a switch never misses memories written while it fills —
 * in one `embed()` call per model, skipping vectors already stored for the same input. Runs with no
 * transaction open. A failing call is retried memory by memory, so one bad input fails only itself.
 */
@Injectable()
export class EmbedMemoriesStep implements MemoryIndexStep {
  private readonly logger = new Logger('EmbedMemories');

  constructor(@Inject(EMBEDDER_PROVIDER) private readonly embedders: EmbedderProvider) {}

  async embed(
    models: readonly EmbeddingModel[],
    memories: readonly MemoryToEmbed[],
  ): Promise<EmbeddedMemories> {
    // Boot registers EMBEDDING_MODEL before any job runs; an empty registry is a broken install,
    // and failing (then retrying) beats marking memories indexed without a vector.
    if (models.length === 0) throw new Error('no embedding model is registered yet');
    const writes: { model: EmbeddingModel; rows: EmbeddingWrite[] }[] = [];
    const failures = new Map<string, string>();
    for (const model of models) {
      const wanted = memories.filter((m) => m.stored.get(model.id) !== m.inputHash.toString('hex'));
      if (wanted.length === 0) continue;
      const vectors = await this.embedWith(model, wanted, failures);
      const rows = wanted.flatMap((m, i) => {
        const vector = vectors[i];
        return vector ? [{ memoryId: m.id, vector, inputHash: m.inputHash }] : [];
      });
      writes.push({ model, rows });
    }
    return { writes, failures };
  }

  /**
   * The read model must succeed for a memory to count as indexed (its failures are returned). A
   * model being filled is best effort: the reindex's final pass embeds whatever is still missing.
   */
  private async embedWith(
    model: EmbeddingModel,
    memories: readonly MemoryToEmbed[],
    failures: Map<string, string>,
  ): Promise<(Float32Array | null)[]> {
    const texts = memories.map((m) => m.text);
    let embedder: Embedder | undefined;
    try {
      embedder = await this.embedders.get(model.id);
      assertSameDimensions(model, embedder.dimensions);
      return await embedder.embed(texts);
    } catch (error) {
      if (model.status !== 'active') {
        this.logger.warn(
          `could not embed with filling model "${model.id}" (the reindex will catch up): ${errorText(error)}`,
        );
        return texts.map(() => null);
      }
      if (texts.length > 1 && embedder !== undefined) return oneByOne(embedder, memories, failures);
      for (const m of memories) failures.set(m.id, errorText(error));
      return texts.map(() => null);
    }
  }
}

async function oneByOne(
  embedder: Embedder,
  memories: readonly MemoryToEmbed[],
  failures: Map<string, string>,
): Promise<(Float32Array | null)[]> {
  const vectors: (Float32Array | null)[] = [];
  for (const memory of memories) {
    try {
      vectors.push((await embedder.embed([memory.text]))[0]);
    } catch (error) {
      failures.set(memory.id, errorText(error));
      vectors.push(null);
    }
  }
  return vectors;
}
