import type { Embedder } from '../../ports/embedder.port';

export interface QueryEmbeddingCacheStats {
  readonly size: number;
  readonly hits: number;
  readonly misses: number;
}

/**
 * Least-recently-used cache of query vectors, keyed by model id and exact text: agents repeat
 * the same recall queries, and a cached vector skips the model call on the request path.
 * Concurrent requests for the same query share one embed call; failures are not cached.
 * A capacity of 0 disables caching.
 */
export class QueryEmbeddingCache {
  // Map iteration order is insertion order: re-inserting on a hit makes the first key the LRU one.
  private readonly entries = new Map<string, Promise<Float32Array>>();
  private hits = 0;
  private misses = 0;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
    }
  }

  /** The query's vector from the cache or from `embedder`; a copy the caller may modify. */
  async embed(embedder: Embedder, text: string): Promise<Float32Array> {
    if (this.capacity === 0) return embedOne(embedder, text);
    const key = `${embedder.modelId}\u0000${text}`;
    let entry = this.entries.get(key);
    if (entry) {
      this.hits += 1;
      this.entries.delete(key);
      this.entries.set(key, entry);
    } else {
      this.misses += 1;
      entry = embedOne(embedder, text);
      this.entries.set(key, entry);
      this.evictOverflow();
      const pending = entry;
      pending.catch(() => {
        if (this.entries.get(key) === pending) this.entries.delete(key);
      });
    }
    return (await entry).slice();
  }

  stats(): QueryEmbeddingCacheStats {
    return { size: this.entries.size, hits: this.hits, misses: this.misses };
  }

  clear(): void {
    this.entries.clear();
  }

  private evictOverflow(): void {
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) return;
      this.entries.delete(oldest.value);
    }
  }
}

async function embedOne(embedder: Embedder, text: string): Promise<Float32Array> {
  const [vector] = await embedder.embed([text]);
  return vector;
}
