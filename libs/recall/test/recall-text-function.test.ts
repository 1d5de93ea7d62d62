import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type TenantScope } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';

/**
 * `recall_text_search` runs as the schema owner, past row-level security, so that the text leg can
 * use its GIN index. These tests call it the way anyone holding the application role could — raw
 * SQL as `memory_app`, with whatever settings they like — and check that no id of another tenant's
 * memory, of a teammate's private memory, or of a deleted one ever comes out of it.
 */
describe('recall_text_search from the database side', () => {
  let db: TestDatabase;
  let pg: Client;
  let alice: TenantScope;
  let bob: TenantScope;
  let outsider: TenantScope;
  const ids: Record<string, string> = {};

  const call = `SELECT memory_id::text AS id FROM recall_text_search(
    tsvector_to_array(to_tsvector('english', $1)), 100, 1.2, 0.75, NULL, NULL, NULL, NULL, NULL)`;
  /** The same with lexemes given as they are. */
  const callLexemes = `SELECT memory_id::text AS id FROM recall_text_search($1::text[], 100, 1.2, 0.75, NULL, NULL, NULL, NULL, NULL)`;

  /** One transaction as memory_app with exactly these settings (none when omitted). */
  const asApp = async (settings: Record<string, string>, sql: string, params: unknown[] = []) => {
    await pg.query('BEGIN');
    try {
      await pg.query(`SELECT set_config('role', 'memory_app', true)`);
      for (const [name, value] of Object.entries(settings)) {
        await pg.query(`SELECT set_config($1, $2, true)`, [name, value]);
      }
      return (await pg.query<{ id: string }>(sql, params)).rows.map((r) => r.id);
    } finally {
      await pg.query('ROLLBACK');
    }
  };
  const settingsOf = (scope: TenantScope, extra: Record<string, string> = {}) => ({
    'app.tenant_id': scope.tenantId,
    'app.user_id': scope.userId,
    ...extra,
  });
  const store = async (name: string, owner: TenantScope, visibility: 'private' | 'team', deleted = false) => {
    const { rows } = await db.tx.inTenant(owner, (tx) =>
      tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility, deleted_at)
         VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')), $4, CASE WHEN $5 THEN now() END) RETURNING id`,
        [owner.tenantId, owner.userId, `ptarmigan ledger ${name}`, visibility, deleted],
      ),
    );
    ids[name] = rows[0].id;
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 2);
    const team = await createTestTenant(db, 'rts');
    alice = await team.addUser('alice');
    bob = await team.addUser('bob');
    outsider = await (await createTestTenant(db, 'rts-other')).addUser('outsider');
    await store('alice-private', alice, 'private');
    await store('alice-team', alice, 'team');
    await store('alice-deleted', alice, 'team', true);
    await store('bob-private', bob, 'private');
    await store('outsider-team', outsider, 'team');
    pg = new Client({ connectionString: inject('databaseUrl') });
    await pg.connect();
  });

  afterAll(async () => {
    await pg?.end();
    await db?.close();
  });

  it('answers the caller with their visible memories only', async () => {
    const found = await asApp(settingsOf(bob), call, ['ptarmigan ledger']);
    expect(found.sort()).toEqual([ids['alice-team'], ids['bob-private']].sort());
  });

  it('returns nothing without settings, or with a tenant but no user', async () => {
    expect(await asApp({}, call, ['ptarmigan ledger'])).toEqual([]);
    expect(await asApp({ 'app.tenant_id': alice.tenantId }, call, ['ptarmigan ledger'])).toEqual([]);
    expect(await asApp({ 'app.user_id': alice.userId }, call, ['ptarmigan ledger'])).toEqual([]);
  });

  it("never returns another tenant's memory, whatever user the caller claims", async () => {
    const claims = [
      settingsOf(outsider),
      // Another tenant's user id under the outsider's tenant, and admin on top.
      { ...settingsOf(outsider), 'app.user_id': alice.userId, 'app.admin': 'on' },
    ];
    for (const settings of claims) {
      const found = await asApp(settings, call, ['alice']);
      expect(found).toEqual([]);
      const own = await asApp(settings, call, ['ptarmigan ledger outsider']);
      expect(own).toEqual([ids['outsider-team']]);
    }
  });

  it("never returns a teammate's private memory, even when the query names only it", async () => {
    // 'alice-priv' (of "alice-private") is a lexeme only that memory holds.
    const only = [['alice-priv']];
    expect(await asApp(settingsOf(bob), callLexemes, only)).toEqual([]);
    // app.system is the owner's setting: claiming it as memory_app changes nothing here.
    expect(await asApp(settingsOf(bob, { 'app.system': 'on' }), callLexemes, only)).toEqual([]);
    expect(await asApp(settingsOf(alice), callLexemes, only)).toEqual([ids['alice-private']]);
    // Any term matches: bob's own and alice's team memory come back, her private one never.
    const any = await asApp(settingsOf(bob), call, ['ptarmigan ledger alice private']);
    expect(any.sort()).toEqual([ids['alice-team'], ids['bob-private']].sort());
  });

  it('leaves deleted memories out, for their owner too', async () => {
    expect(await asApp(settingsOf(alice), callLexemes, [['alice-delet']])).toEqual([]);
    expect(await asApp(settingsOf(alice), call, ['ptarmigan ledger alice deleted'])).not.toContain(
      ids['alice-deleted'],
    );
  });

  it('is executable by the application role, not by PUBLIC', async () => {
    const { rows } = await pg.query<{ grantee: string }>(
      `SELECT coalesce(r.rolname, 'PUBLIC') AS grantee
         FROM pg_proc p, aclexplode(p.proacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee
        WHERE p.proname = 'recall_text_search' AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner`,
    );
    expect(rows.map((r) => r.grantee)).toEqual(['memory_app']);
  });
});
