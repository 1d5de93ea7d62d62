import { describe, expect, it } from 'vitest';
import { mayWrite, TenantWrites } from './tenant-writes';

describe('tenant writes', () => {
  it('counts the statements that change what recall indexes, not other bookkeeping', () => {
    for (const sql of [
      'INSERT INTO memories (tenant_id) VALUES ($1)',
      `WITH moved AS (UPDATE memories SET deleted_at = now() WHERE id = $1 RETURNING id) SELECT * FROM moved`,
      'DELETE FROM memory_shares WHERE memory_id = $1',
      'insert into tag_shares (owner_id) values ($1)',
      'UPDATE memory_embeddings SET embedding = $2',
      'DELETE FROM users WHERE id = $1',
    ])
      expect(mayWrite(sql), sql).toBe(true);
    for (const sql of [
      'SELECT * FROM memories WHERE deleted_at IS NULL FOR UPDATE',
      'UPDATE outbox SET dispatched_at = now() WHERE id = ANY($1)',
      'UPDATE api_keys SET last_used_at = now() WHERE id = $1',
      'INSERT INTO audit_log (action) VALUES ($1)',
      'SELECT * FROM recall_index_refresh($1, $2, $3, $4, $5)',
      'INSERT INTO memories_text_stats (tenant_id) VALUES ($1)',
    ])
      expect(mayWrite(sql), sql).toBe(false);
  });

  it("changes a tenant's version on its writes and on system writes only", () => {
    const writes = new TenantWrites();
    const a = writes.versionOf('a');
    writes.committed('b');
    expect(writes.versionOf('a')).toBe(a);
    writes.committed('a');
    const afterOwn = writes.versionOf('a');
    expect(afterOwn).not.toBe(a);
    writes.committed(null);
    expect(writes.versionOf('a')).not.toBe(afterOwn);
  });
});
