import { describe, expect, it } from 'vitest';
import { efSearchFor, LARGE_HNSW_ROWS } from './memory-vector.repository';
import { buildCandidateCountQuery, buildNearestQuery } from './memory-vector.sql';
import { toVectorLiteral } from '@app/embeddings';
import { visibleMemorySql } from '@app/memories';

const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  userId: '00000000-0000-4000-8000-000000000002',
};
const spec = { modelId: 'glove-sif-100d', dimensions: 3, vector: [0.1, 0.2, 0.3], k: 10 };

describe('vector search SQL', () => {
  it('orders the HNSW form by the partial index expression and checks memories per row', () => {
    const { sql, params } = buildNearestQuery('hnsw', 'visible', scope, {
      ...spec,
      filters: { category: 'facts' },
    });
    expect(sql).toMatch(/ORDER BY e\.embedding::vector\(3\) <=> \$1::vector\(3\)\s+LIMIT \$2/);
    // Model and tenant are literals, so a plan made without the values still matches the partial indexes.
    expect(sql).toContain(`e.model_id = 'glove-sif-100d' AND e.tenant_id = '${scope.tenantId}'::uuid`);
    expect(sql).toMatch(/\(SELECT true FROM memories m WHERE m\.id = e\.memory_id AND /);
    expect(sql).toContain(visibleMemorySql('m', '$4'));
    expect(params).toEqual(['[0.1,0.2,0.3]', 10, scope.tenantId, scope.userId, 'facts']);
  });

  it('writes only a checked model id and a UUID tenant into the HNSW form', () => {
    expect(() => buildNearestQuery('hnsw', 'visible', scope, { ...spec, modelId: "m' OR '1'='1" })).toThrow();
    expect(() =>
      buildNearestQuery('hnsw', 'visible', { ...scope, tenantId: "x'::uuid OR true --" }, spec),
    ).toThrow(/UUID/);
  });

  it('sorts the exact form above a MATERIALIZED CTE of own, team, direct-share and tag-share branches', () => {
    const visible = buildNearestQuery('exact', 'visible', scope, spec).sql;
    expect(visible).toMatch(/WITH candidates AS MATERIALIZED/);
    expect(visible.match(/UNION ALL/g)).toHaveLength(3);
    expect(visible).toMatch(/FROM memory_shares s JOIN memories m ON m\.id = s\.memory_id/);
    expect(visible).toMatch(
      /FROM tag_shares t JOIN memories m ON m\.owner_id = t\.owner_id AND m\.tags @> ARRAY\[t\.tag\]/,
    );
    // Shared branches leave team-visible rows to the team branch, so no memory comes twice.
    expect(visible.match(/m\.visibility <> 'team'/g)).toHaveLength(2);
    const own = buildNearestQuery('exact', 'own', scope, { ...spec, excludeId: 7 });
    expect(own.sql).not.toMatch(/UNION ALL/);
    // Own rows are scoped on the embeddings' index; the memory row is probed by key only.
    expect(own.sql).toContain('e.owner_id = $5');
    expect(own.sql).not.toContain('m.owner_id = $5');
    expect(own.sql).toContain('m.id <> $6');
    expect(own.params.at(-1)).toBe(7);
  });

  it("gathers a member's candidates for an admin key without private access", () => {
    const admin = { ...scope, scopes: ['memories:read', 'admin'] };
    expect(buildNearestQuery('exact', 'visible', admin, spec).sql).toBe(
      buildNearestQuery('exact', 'visible', scope, spec).sql,
    );
  });

  it("gathers a private-access admin's candidates from every user of the tenant, still gated on app_is_admin()", () => {
    const admin = { ...scope, scopes: ['memories:read', 'admin'], privateAccess: true };
    const exact = buildNearestQuery('exact', 'visible', admin, spec).sql;
    expect(exact).not.toMatch(/UNION ALL/);
    expect(exact).toMatch(
      /FROM users u\s+JOIN memory_embeddings e ON e\.model_id = \$1 AND e\.owner_id = u\.id/,
    );
    expect(exact).toContain(visibleMemorySql('m', '$5'));
    // Dedup compares the caller's own memories, admin or not.
    expect(buildNearestQuery('exact', 'own', admin, spec).sql).not.toContain('users u');
    const count = buildCandidateCountQuery('visible', admin, 'm', 100);
    expect(count.sql).toMatch(/FROM users u[\s\S]*app_is_admin\(\)[\s\S]*LIMIT \$3/);
    expect(count.params).toEqual(['m', scope.tenantId, 100]);
  });

  it('bounds each branch of the candidate count by the threshold', () => {
    const { sql, params } = buildCandidateCountQuery('visible', scope, 'm', 20_000);
    expect(sql.match(/LIMIT \$4/g)).toHaveLength(4);
    expect(buildCandidateCountQuery('own', scope, 'm', 10).sql.match(/LIMIT \$4/g)).toHaveLength(1);
    expect(params).toEqual(['m', scope.tenantId, scope.userId, 20_000]);
  });

  it('sizes the set in the exact statement: each branch stops at the cap, filters only pick the answer', () => {
    const { sql, params } = buildNearestQuery('exact', 'visible', scope, {
      ...spec,
      filters: { category: 'facts' },
      sizeCap: 20_000,
    });
    expect(params).toEqual([
      'glove-sif-100d',
      '[0.1,0.2,0.3]',
      10,
      scope.tenantId,
      scope.userId,
      'facts',
      20_000,
    ]);
    expect(sql.match(/LIMIT \$7\)/g)).toHaveLength(4);
    // Rows are counted as the bounded count counts them: not yet embedded memories too.
    expect(sql.match(/LEFT JOIN memory_embeddings e/g)).toHaveLength(3);
    expect(sql.match(/m\.category = \$6 AS wanted/g)).toHaveLength(4);
    expect(sql).toMatch(/WHERE wanted AND embedding IS NOT NULL AND s\.n < \$7/);
    expect(sql).not.toMatch(/AND m\.category = \$6/);
  });

  it('refuses vectors of the wrong size or with non-finite values, and odd dimensions', () => {
    expect(() => toVectorLiteral([1, 2], 3)).toThrow(/3-dimensional/);
    expect(() => toVectorLiteral([1, Number.NaN, 2], 3)).toThrow(/finite/);
    expect(() => buildNearestQuery('exact', 'own', scope, { ...spec, dimensions: 3.5 })).toThrow(
      /dimensions/,
    );
  });

  it('walks at least 200 candidates, more for larger k, never above pgvector’s limit', () => {
    expect(efSearchFor(10)).toBe(200);
    expect(efSearchFor(30)).toBe(300);
    expect(efSearchFor(300)).toBe(1000);
  });

  it("walks a tenant's own index with a shorter list: 4k, at least 100, never above the limit", () => {
    expect(efSearchFor(10, 'tenant')).toBe(100);
    expect(efSearchFor(30, 'tenant')).toBe(120);
    expect(efSearchFor(400, 'tenant')).toBe(1000);
    // The tenant holding 80% or more of the shared index: the own list, a fifth longer.
    expect(efSearchFor(30, 'dominant')).toBe(150);
    expect(efSearchFor(10, 'dominant')).toBe(125);
  });

  it('walks a graph of 500,000 rows or more with a list twice as long, never above the limit', () => {
    expect(efSearchFor(30, 'dominant', LARGE_HNSW_ROWS - 1)).toBe(150);
    expect(efSearchFor(30, 'dominant', LARGE_HNSW_ROWS)).toBe(300);
    expect(efSearchFor(30, 'tenant', 2_000_000)).toBe(240);
    expect(efSearchFor(30, 'model', 1_000_000)).toBe(600);
    expect(efSearchFor(300, 'model', 1_000_000)).toBe(1000);
  });
});
