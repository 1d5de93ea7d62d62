import { describe, expect, it } from 'vitest';
import { createTableSql, loadBatchSql, md5Uuid, ownerUuid, sizeSql, tenantUuid } from './layout-schema';

describe('layout schema', () => {
  it('builds a plain table with the real key and indexes', () => {
    const sql = createTableSql('t');
    expect(sql[0]).toContain('PRIMARY KEY (id, tenant_id)');
    expect(sql[0]).not.toContain('PARTITION BY');
    expect(sql.filter((s) => s.startsWith('CREATE INDEX'))).toHaveLength(6);
    expect(sql.join('\n')).toContain('CREATE INDEX t_search ON t USING gin (search_vector)');
  });

  it('adds one hash partition per remainder, with the same indexes', () => {
    const sql = createTableSql('t', 4);
    expect(sql[0]).toContain('PARTITION BY HASH (tenant_id)');
    expect(sql.filter((s) => s.includes('PARTITION OF'))).toEqual(
      [0, 1, 2, 3].map(
        (r) => `CREATE TABLE t_p${r} PARTITION OF t FOR VALUES WITH (MODULUS 4, REMAINDER ${r})`,
      ),
    );
    expect(sql.filter((s) => s.startsWith('CREATE INDEX'))).toHaveLength(6);
  });

  it('names tenants and owners as Postgres md5(text)::uuid does', () => {
    // SELECT md5('abc')::uuid
    expect(md5Uuid('abc')).toBe('90015098-3cd2-4fb0-d696-3f7d28e17f72');
    expect(tenantUuid(0)).toBe(md5Uuid('tenant-0'));
    expect(ownerUuid(3, 2)).toBe(md5Uuid('owner-3-2'));
  });

  it('loads the skew it is given and sizes partitions too', () => {
    const sql = loadBatchSql('t', {
      rows: 10,
      bigPercent: 50,
      smallTenants: 200,
      bigOwners: 50,
      smallOwners: 3,
    });
    expect(sql).toContain('i % 100 < 50 THEN 0 ELSE 1 + h / 37 % 200');
    expect(sql).toContain("md5('owner-' || t || '-'");
    expect(sizeSql('t')).toContain("pg_partition_tree('t')");
  });
});
