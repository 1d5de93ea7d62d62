import { createHash } from 'node:crypto';
import { EmbeddingError, EmbeddingErrorCode } from '@app/embeddings';
import { type Embedder, type EmbedderProvider } from '@app/embeddings';

/**
 * TEST DOUBLE, not a language model: a hashed bag of words. Each lower-cased word adds ±1 to a
 * dimension chosen by hashing it with the model id, then the vector is L2-normalised. Same text
 * and model → same vector; texts sharing words are closer than texts that share none. Different
 * model ids hash differently, so two "models" really disagree, as real ones would.
 */
export class DeterministicEmbedder implements Embedder {
  /** Every `embed` call's texts, in order (tests assert on batching and on work skipped). */
  readonly calls: string[][] = [];
  /** Make the next `embed` calls throw (simulates a model failing mid-job). */
  failNext = 0;
  /** Every call from this (1-based) call number on throws, until reset to undefined (an outage). */
  failFromCall: number | undefined;
  /** Delay per call, to keep a job running while a test looks at it. */
  delayMs = 0;

  constructor(
    readonly modelId: string,
    readonly dimensions: number,
  ) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failNext > 0 || (this.failFromCall !== undefined && this.calls.length >= this.failFromCall)) {
      this.failNext = Math.max(0, this.failNext - 1);
      throw new Error(`deterministic embedder "${this.modelId}" told to fail`);
    }
    return texts.map((text) => this.vector(text));
  }

  vector(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const digest = createHash('sha256').update(`${this.modelId}\u0000${word}`).digest();
      vector[digest.readUInt32BE(0) % this.dimensions] += digest[4] & 1 ? 1 : -1;
    }
    let norm = Math.hypot(...vector);
    if (norm === 0) {
      vector[0] = 1;
      norm = 1;
    }
    return vector.map((x) => x / norm);
  }

  get textsEmbedded(): number {
    return this.calls.reduce((sum, call) => sum + call.length, 0);
  }
}

/** Serves DeterministicEmbedders for a fixed set of model ids; any other id fails like a missing folder. */
export class DeterministicEmbedderProvider implements EmbedderProvider {
  private readonly embedders = new Map<string, DeterministicEmbedder>();

  constructor(
    readonly defaultModelId: string,
    models: Readonly<Record<string, number>>,
  ) {
    for (const [id, dimensions] of Object.entries(models))
      this.embedders.set(id, new DeterministicEmbedder(id, dimensions));
  }

  async get(modelId: string): Promise<DeterministicEmbedder> {
    return this.embedder(modelId);
  }

  /** Synchronous access for assertions. */
  embedder(modelId: string): DeterministicEmbedder {
    const embedder = this.embedders.get(modelId);
    if (!embedder) {
      throw new EmbeddingError(
        EmbeddingErrorCode.ModelUnavailable,
        `Embedding model "${modelId}" could not be loaded from (deterministic test provider): no such model`,
      );
    }
    return embedder;
  }
}
