import { describe, expect, it } from 'vitest';
import {
  assertModelSpec,
  assertSameDimensions,
  dominantTenantComment,
  hnswIndexName,
  TENANT_HNSW_INDEX_PREFIX,
  tenantHnswIndexName,
} from './embedding-model';
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

  it("names a tenant's own index per model and tenant, within Postgres' 63 bytes, and only for UUIDs", () => {
    const tenants = ['7d9f2c4e-0b1a-4c3d-9e8f-1a2b3c4d5e6f', '0b1a4c3d-7d9f-2c4e-9e8f-6f5e4d3c2b1a'];
    const names = ['glove-sif-100d', 'use-lite-512d'].flatMap((m) =>
      tenants.map((t) => tenantHnswIndexName(m, t)),
    );
    expect(new Set(names).size).toBe(4);
    for (const name of names) expect(name).toMatch(new RegExp(`^${TENANT_HNSW_INDEX_PREFIX}[0-9a-f]{24}$`));
    expect(Math.max(...names.map((n) => n.length))).toBeLessThanOrEqual(63);
    expect(tenantHnswIndexName('glove-sif-100d', tenants[0].toUpperCase())).toBe(names[0]);
    expect(() => tenantHnswIndexName('glove-sif-100d', "x' OR '1'='1")).toThrow(/UUID/);
    // The shared index's comment for the tenant holding most of it: a UUID only, so safe in COMMENT ON.
    expect(dominantTenantComment(tenants[0].toUpperCase())).toBe(`{"dominant":"${tenants[0]}"}`);
    expect(() => dominantTenantComment("x'; DROP TABLE memories; --")).toThrow(/UUID/);
  });

  it('refuses a model whose vectors changed size under the same id', () => {
    expect(() => assertSameDimensions({ id: 'm', dimensions: 100 }, 384)).toThrow(
      expect.objectContaining({ code: EmbeddingErrorCode.DimensionsMismatch }),
    );
  });
});
