import { describe, expect, it } from 'vitest';
import { assertModelSpec, assertSameDimensions, hnswIndexName } from './embedding-model';
import { EmbeddingErrorCode } from './embedding.errors';

describe('embedding model rules', () => {
  it('derives a valid, stable, distinct index name for every acceptable model id', () => {
    const ids = ['glove-sif-100d', 'Xenova/all-MiniLM-L6-v2', 'xenova/all_minilm_l6_v2', 'a'.repeat(128)];
    const names = ids.map(hnswIndexName);
    for (const name of names) {
      expect(name).toMatch(/^[a-z_][a-z0-9_]*$/);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63);
    }
    expect(new Set(names).size).toBe(ids.length);
    expect(hnswIndexName('glove-sif-100d')).toBe(names[0]);
  });

  it('refuses ids that could break out of the index DDL, and unindexable dimensions', () => {
    for (const id of ["x' OR '1'='1", 'model;drop', '', '../up', 'a'.repeat(129)]) {
      expect(() => hnswIndexName(id), id).toThrow(
        expect.objectContaining({ code: EmbeddingErrorCode.InvalidModel }),
      );
    }
    for (const dimensions of [0, -1, 2001, 1.5, Number.NaN]) {
      expect(() => assertModelSpec('glove-sif-100d', dimensions)).toThrow(/dimensions/);
    }
    expect(() => assertModelSpec('glove-sif-100d', 2000)).not.toThrow();
  });

  it('refuses a model whose vectors changed size under the same id', () => {
    expect(() => assertSameDimensions({ id: 'm', dimensions: 100 }, 384)).toThrow(
      expect.objectContaining({ code: EmbeddingErrorCode.DimensionsMismatch }),
    );
  });
});
