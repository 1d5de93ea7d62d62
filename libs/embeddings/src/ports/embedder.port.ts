/**
 * Turns texts into L2-normalised vectors with one model. Implementations load lazily and may
 * batch concurrent calls; `embed` returns one vector per input, in input order.
 */
export interface Embedder {
  readonly modelId: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Gives the embedder for a model id (the active read model may differ from the configured one during a switch). */
export interface EmbedderProvider {
  /** The model configured for this process (EMBEDDING_MODEL). */
  readonly defaultModelId: string;
  get(modelId: string): Promise<Embedder>;
}

export const EMBEDDER_PROVIDER = Symbol('EMBEDDER_PROVIDER');
