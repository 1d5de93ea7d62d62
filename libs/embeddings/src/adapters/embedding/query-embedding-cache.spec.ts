import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../ports/embedder.port';
import { QueryEmbeddingCache } from './query-embedding-cache';

/** An embedder whose vector encodes the text length and a call counter, so reuse is visible. */
function countingEmbedder(modelId = 'model-a', options: { failNext?: boolean } = {}) {
  const calls: string[] = [];
  let failNext = options.failNext ?? false;
  const embedder: Embedder = {
    modelId,
    dimensions: 2,
    async embed(texts) {
      calls.push(...texts);
      if (failNext) {
        failNext = false;
        throw new Error('model crashed');
      }
      return texts.map((text) => Float32Array.from([text.length, calls.length]));
    },
  };
  return { embedder, calls };
}

describe('QueryEmbeddingCache', () => {
  it('answers a repeated query from the cache', async () => {
    const cache = new QueryEmbeddingCache(10);
    const { embedder, calls } = countingEmbedder();

    const first = await cache.embed(embedder, 'deploy steps');
    const second = await cache.embed(embedder, 'deploy steps');

    expect(calls).toEqual(['deploy steps']);
    expect(Array.from(second)).toEqual(Array.from(first));
    expect(cache.stats()).toEqual({ size: 1, hits: 1, misses: 1 });
  });

  it('hands out copies, so a caller cannot corrupt the cached vector', async () => {
    const cache = new QueryEmbeddingCache(10);
    const { embedder } = countingEmbedder();

    const first = await cache.embed(embedder, 'q');
    first.fill(42);

    expect(Array.from(await cache.embed(embedder, 'q'))).toEqual([1, 1]);
  });

  it('evicts the least recently used query when full', async () => {
    const cache = new QueryEmbeddingCache(2);
    const { embedder, calls } = countingEmbedder();

    await cache.embed(embedder, 'a');
    await cache.embed(embedder, 'b');
    await cache.embed(embedder, 'a'); // a is now more recent than b
    await cache.embed(embedder, 'c'); // evicts b
    await cache.embed(embedder, 'a');
    await cache.embed(embedder, 'b');

    expect(calls).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.stats().size).toBe(2);
  });

  it('keeps vectors of different models apart', async () => {
    const cache = new QueryEmbeddingCache(10);
    const a = countingEmbedder('model-a');
    const b = countingEmbedder('model-b');

    await cache.embed(a.embedder, 'same text');
    await cache.embed(b.embedder, 'same text');

    expect(a.calls).toEqual(['same text']);
    expect(b.calls).toEqual(['same text']);
  });

  it('shares one model call between concurrent identical queries', async () => {
    const cache = new QueryEmbeddingCache(10);
    const { embedder, calls } = countingEmbedder();

    const vectors = await Promise.all([cache.embed(embedder, 'q'), cache.embed(embedder, 'q')]);

    expect(calls).toEqual(['q']);
    expect(Array.from(vectors[0])).toEqual(Array.from(vectors[1]));
  });

  it('does not cache a failure', async () => {
    const cache = new QueryEmbeddingCache(10);
    const { embedder, calls } = countingEmbedder('model-a', { failNext: true });

    await expect(cache.embed(embedder, 'q')).rejects.toThrow('model crashed');
    await expect(cache.embed(embedder, 'q')).resolves.toBeInstanceOf(Float32Array);

    expect(calls).toEqual(['q', 'q']);
  });

  it('calls the model every time when the capacity is 0', async () => {
    const cache = new QueryEmbeddingCache(0);
    const { embedder, calls } = countingEmbedder();

    await cache.embed(embedder, 'q');
    await cache.embed(embedder, 'q');

    expect(calls).toEqual(['q', 'q']);
    expect(cache.stats().size).toBe(0);
  });
});
