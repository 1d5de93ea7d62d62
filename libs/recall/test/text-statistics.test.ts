import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type TenantScope, type Tx } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';

/**
 * The BM25 statistics (live documents, their total weighted length, each lexeme's document
 * frequency, each memory's length) stay exactly what a recount of the tenant's live rows gives:
 * after edits, soft delete, restore and hard delete, before and after a fold, and under concurrent
 * writers on several connections while folds run.
 */
describe('text statistics behind BM25', () => {
  let db: TestDatabase;
  let user: TenantScope;
  const extraClients: Client[] = [];

  /** What the search function reads: folded totals plus pending deltas. */
  const maintained = (tx: Tx, tenantId: string) =>
    tx.query<{
      documents: string;
      length: string;
      terms: Record<string, number> | null;
      lengths: Record<string, number> | null;
    }>(
      `SELECT c.documents, c.length,
              (SELECT jsonb_object_agg(d.lexeme, d.documents) FROM text_term_documents($1,
                 -- Every lexeme the tenant ever held: purged ones must come out at zero.
                 ARRAY(SELECT l FROM memories m, unnest(tsvector_to_array(m.search_vector)) l WHERE m.tenant_id = $1
                       UNION SELECT s.lexeme FROM text_term_stats s WHERE s.tenant_id = $1
                       UNION SELECT l FROM text_stats_deltas d, unnest(d.lexemes) l WHERE d.tenant_id = $1)) d
                WHERE d.documents <> 0) AS terms,
              (SELECT jsonb_object_agg(l.memory_id, l.length) FROM memory_text_lengths l
                 JOIN memories m ON m.id = l.memory_id WHERE m.tenant_id = $1 AND m.deleted_at IS NULL) AS lengths
         FROM text_corpus_totals($1) c`,
      [tenantId],
    );
  /** The same counted from the live rows, weights spelled out here (tenths: A 10, B 4, C 2, D 1). */
  const recount = (tx: Tx, tenantId: string) =>
    tx.query<{
      documents: string;
      length: string;
      terms: Record<string, number> | null;
      lengths: Record<string, number> | null;
    }>(
      `WITH live AS (SELECT * FROM memories WHERE tenant_id = $1 AND deleted_at IS NULL),
            len AS (SELECT m.id, sum(CASE w WHEN 'A' THEN 10 WHEN 'B' THEN 4 WHEN 'C' THEN 2 ELSE 1 END) AS length
                      FROM live m, unnest(m.search_vector) u, unnest(u.weights) w GROUP BY m.id)
       SELECT (SELECT count(*) FROM live) AS documents, (SELECT coalesce(sum(length), 0) FROM len) AS length,
              (SELECT jsonb_object_agg(lexeme, n) FROM (SELECT l AS lexeme, count(*) AS n
                 FROM live m, unnest(tsvector_to_array(m.search_vector)) l GROUP BY l) t) AS terms,
              (SELECT jsonb_object_agg(id, length) FROM len) AS lengths`,
      [tenantId],
    );
  const expectExact = async (tenantId: string) => {
    const [ours, truth] = await db.tx.asSystem(async (tx) => [
      (await maintained(tx, tenantId)).rows[0],
      (await recount(tx, tenantId)).rows[0],
    ]);
    expect({ ...ours, documents: Number(ours.documents), length: Number(ours.length) }).toEqual({
      ...truth,
      documents: Number(truth.documents),
      length: Number(truth.length),
    });
    return Number(truth.documents);
  };
  const fold = () => db.tx.asSystem((tx) => tx.query(`SELECT text_stats_fold(1000000)`));
  const write = (sql: string, params: unknown[]) =>
    db.tx.inTenant(user, (tx) => tx.query<{ id: string }>(sql, params));
  const insert = async (content: string, fields: { tags?: string[]; keywords?: string } = {}) => {
    const { rows } = await write(
      `INSERT INTO memories (tenant_id, owner_id, content, content_hash, tags, expanded_keywords)
       VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')), $4, $5) RETURNING id`,
      [user.tenantId, user.userId, content, fields.tags ?? [], fields.keywords ?? ''],
    );
    return rows[0].id;
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    user = await (await createTestTenant(db, 'textstats')).addUser('writer');
  });

  afterAll(async () => {
    await Promise.all(extraClients.map((c) => c.end()));
    await db?.close();
  });

  it('follows inserts, edits, soft delete, restore and hard delete, pending and folded', async () => {
    const a = await insert('The rollback of the helm chart failed twice', { tags: ['helm'] });
    const b = await insert('Postgres vacuum runs nightly', { keywords: 'maintenance database' });
    const c = await insert('Alice owns the pager rotation in March');
    expect(await expectExact(user.tenantId)).toBe(3);
    await fold();
    expect(await expectExact(user.tenantId)).toBe(3);

    await write(
      `UPDATE memories SET content = 'The rollback of the helm chart worked', content_hash = sha256('x') WHERE id = $1`,
      [a],
    );
    await write(`UPDATE memories SET tags = '{ops,helm}', expanded_keywords = 'deploy' WHERE id = $1`, [a]);
    await write(`UPDATE memories SET category = 'decisions' WHERE id = $1`, [b]);
    await write(`UPDATE memories SET importance = 0.9 WHERE id = $1`, [c]); // counts nothing
    await expectExact(user.tenantId);
    await write(`UPDATE memories SET deleted_at = now() WHERE id = $1`, [b]);
    expect(await expectExact(user.tenantId)).toBe(2);
    await fold();
    // Edited while deleted, then restored: counted with its content at restore time.
    await write(
      `UPDATE memories SET content = 'Postgres vacuum runs weekly now', content_hash = sha256('y') WHERE id = $1`,
      [b],
    );
    expect(await expectExact(user.tenantId)).toBe(2);
    await write(`UPDATE memories SET deleted_at = NULL WHERE id = $1`, [b]);
    expect(await expectExact(user.tenantId)).toBe(3);
    await write(`DELETE FROM memories WHERE id = $1`, [c]);
    expect(await expectExact(user.tenantId)).toBe(2);
    await fold();
    expect(await expectExact(user.tenantId)).toBe(2);
    // Purging a soft-deleted memory changes nothing more.
    await write(`UPDATE memories SET deleted_at = now() WHERE id = $1`, [a]);
    await write(`DELETE FROM memories WHERE id = $1`, [a]);
    expect(await expectExact(user.tenantId)).toBe(1);
    await fold();
    expect(await expectExact(user.tenantId)).toBe(1);
  });

  it('a change and its statistics become visible together, and a rollback leaves none', async () => {
    const before = await expectExact(user.tenantId);
    const writer = new Client({ connectionString: inject('databaseUrl') });
    await writer.connect();
    extraClients.push(writer);
    const inWriter = async (sql: string) => {
      await writer.query('BEGIN');
      await writer.query(
        `SELECT set_config('role', 'memory_app', true), set_config('app.tenant_id', $1, true), set_config('app.user_id', $2, true)`,
        [user.tenantId, user.userId],
      );
      await writer.query(sql, [user.tenantId, user.userId]);
    };
    const insertSql = `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
                       VALUES ($1, $2, 'An uncommitted note about zeppelins', sha256(convert_to(gen_random_uuid()::text, 'UTF8')))`;
    await inWriter(insertSql);
    expect(await expectExact(user.tenantId)).toBe(before); // not committed: neither row nor statistics
    await writer.query('ROLLBACK');
    expect(await expectExact(user.tenantId)).toBe(before);
    await inWriter(insertSql);
    await writer.query('COMMIT');
    expect(await expectExact(user.tenantId)).toBe(before + 1);
  });

  it('stays exact under concurrent writers on several connections while folds run', async () => {
    const before = await expectExact(user.tenantId);
    const WRITERS = 6;
    const EACH = 40;
    const clients = await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        const c = new Client({ connectionString: inject('databaseUrl') });
        await c.connect();
        extraClients.push(c);
        return c;
      }),
    );
    let writing = true;
    const folds = (async () => {
      let runs = 0;
      while (writing) {
        await fold();
        runs += 1;
      }
      return runs;
    })();
    await Promise.all(
      clients.map(async (c, w) => {
        for (let i = 0; i < EACH; i += 1) {
          await c.query('BEGIN');
          await c.query(
            `SELECT set_config('role', 'memory_app', true), set_config('app.tenant_id', $1, true), set_config('app.user_id', $2, true)`,
            [user.tenantId, user.userId],
          );
          const content = `writer ${w} note ${i} about deploy ${i % 7} and cache ${(i * w) % 5}`;
          const { rows } = await c.query<{ id: string }>(
            `INSERT INTO memories (tenant_id, owner_id, content, content_hash, tags)
             VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')), $4) RETURNING id`,
            [user.tenantId, user.userId, content, [`w${w}`]],
          );
          // Every third is edited in the same transaction, every fifth deleted again, some aborted.
          if (i % 3 === 0)
            await c.query(`UPDATE memories SET content = content || ' edited' WHERE id = $1`, [rows[0].id]);
          if (i % 5 === 0) await c.query(`DELETE FROM memories WHERE id = $1`, [rows[0].id]);
          await c.query(i % 11 === 0 ? 'ROLLBACK' : 'COMMIT');
        }
      }),
    );
    writing = false;
    expect(await folds).toBeGreaterThan(0);
    const kept = Array.from({ length: EACH }, (_, i) => i).filter((i) => i % 5 !== 0 && i % 11 !== 0).length;
    expect(await expectExact(user.tenantId)).toBe(before + WRITERS * kept);
    await fold();
    expect(await expectExact(user.tenantId)).toBe(before + WRITERS * kept);
  });
});
