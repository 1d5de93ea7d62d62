import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from 'pg';
import { type TenantScope } from '@app/persistence';
import { DEFAULT_RECALL_OPTIONS } from '@app/recall';
import { buildTextIndexLeg, type TextLeg } from '@app/recall/testing';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  openTestDatabase,
  spyOnQueries,
  type TestDatabase,
} from '@app/testing';
import { textLegRecall } from '../../../test/support/text-recall';

/**
 * A recall right after another uses the tenant's index as it is (no statement before the rows)
 * while it is fresh: refreshed less than RECALL_INDEX_FRESH_MS ago, no write of the tenant committed
 * by this process since, every query word known. A write through this process is found by the next
 * recall at once; a write this process did not make (another process: here a plain connection) is
 * found once the index is no longer fresh; an unshare made elsewhere never shows the memory, even
 * while the index still counts the share.
 */
describe('recall on a fresh index', () => {
  let db: TestDatabase;
  let other: Client;
  let alice: Principal;
  let bob: Principal;

  const insert = (who: TenantScope, content: string, visibility = 'team') =>
    db.tx.inTenant(who, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility)
         VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')), $4) RETURNING id`,
        [who.tenantId, who.userId, content, visibility],
      );
      return Number(rows[0].id);
    });
  /** Written as another process would: not through this process's transactions. */
  const elsewhere = (sql: string, params: unknown[]) => other.query(sql, params);

  /** The text leg's hits for `text`, and how many refresh statements it sent. */
  async function search(leg: TextLeg, who: TenantScope, text: string) {
    let refreshes = 0;
    const stop = spyOnQueries(({ sql }) => (refreshes += sql.includes('recall_index_refresh') ? 1 : 0));
    try {
      const found = await db.tx.inTenant(who, (tx) => leg.search(who, tx, { text, k: 10, filter: {} }));
      expect(found.source).toBe('index');
      return { ids: found.hits.map((h) => h.memoryId), refreshes };
    } finally {
      stop();
    }
  }

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    other = new Client({ connectionString: inject('databaseUrl') });
    await other.connect();
    const tenant = await createTestTenant(db, 'fresh');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    await insert(alice, 'kestrel harbor runbook');
  });
  afterAll(async () => {
    await other?.end();
    await db?.close();
  });

  it('skips the refresh while fresh, and refreshes after a write of this process', async () => {
    const { leg, registry } = buildTextIndexLeg(db.tx, { maxBytes: 16 * 1024 * 1024, freshMs: 60_000 });
    expect(await registry.warm(alice)).toBe(true);
    const first = await search(leg, alice, 'kestrel runbook');
    expect(first.refreshes).toBe(1);
    const again = await search(leg, bob, 'kestrel runbook');
    expect(again).toEqual({ ids: first.ids, refreshes: 0 });
    // A chunk never seen: the refresh that tokenises it runs, and teaches it.
    expect((await search(leg, alice, 'kestrel harbor-master?')).refreshes).toBe(1);
    expect((await search(leg, alice, 'harbor-master?')).refreshes).toBe(0);
    // Markup, which Postgres parses across spaces, always refreshes.
    expect((await search(leg, alice, '<b>kestrel</b>')).refreshes).toBe(1);
    expect((await search(leg, alice, '<b>kestrel</b>')).refreshes).toBe(1);

    const written = await insert(bob, 'kestrel nest survey');
    const after = await search(leg, alice, 'kestrel runbook');
    expect(after.refreshes).toBe(1);
    expect(after.ids).toContain(written);
  });

  it("sees another process's write once the index is no longer fresh", async () => {
    const { leg, registry } = buildTextIndexLeg(db.tx, { maxBytes: 16 * 1024 * 1024, freshMs: 150 });
    expect(await registry.warm(alice)).toBe(true);
    await search(leg, alice, 'osprey');
    const { rows } = await elsewhere(
      `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility)
       VALUES ($1, $2, 'osprey sighting', sha256(convert_to('osprey sighting', 'UTF8')), 'team') RETURNING id`,
      [bob.tenantId, bob.userId],
    );
    const id = Number(rows[0].id);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const later = await search(leg, alice, 'osprey');
    expect(later.refreshes).toBe(1);
    expect(later.ids).toEqual([id]);
  });

  it('never serves a memory unshared elsewhere while the index still counts the share', async () => {
    const { leg, registry } = buildTextIndexLeg(db.tx, { maxBytes: 16 * 1024 * 1024, freshMs: 60_000 });
    const recall = textLegRecall(db.tx, DEFAULT_RECALL_OPTIONS, leg);
    const secret = await insert(bob, 'falcon migration notes', 'private');
    await db.tx.inTenant(bob, (tx) =>
      tx.query(
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
         VALUES ($1, $2, $3, $4, 'read')`,
        [secret, bob.userId, alice.userId, bob.tenantId],
      ),
    );
    expect(await registry.warm(alice)).toBe(true);
    const ask = () =>
      recall.execute(alice, {
        context: 'falcon migration',
        expandedQuery: '',
        sortBy: 'relevance',
        limit: 10,
        legs: { text: true, vector: false },
      });
    expect((await ask()).map((r) => r.memory.id)).toEqual([secret]);
    await elsewhere(`DELETE FROM memory_shares WHERE memory_id = $1 AND shared_with = $2`, [
      secret,
      alice.userId,
    ]);
    // Still fresh: the text leg proposes it, the rows read under row-level security drop it.
    expect((await search(leg, alice, 'falcon migration')).ids).toEqual([secret]);
    expect(await ask()).toEqual([]);
  });
});
