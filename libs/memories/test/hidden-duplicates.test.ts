import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  contentHash,
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  MemoryError,
  RestoreMemoryUseCase,
  UpdateMemoryUseCase,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import { waitFor } from '../../../test/support/wait-for';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };

/**
 * An editor's text that equals a memory of the owner the editor cannot see: the edit answers as a
 * unique text would, and what the editor sees afterwards (duplicate refusals included) is the same
 * whether or not the owner had that text (migration 1763700000035).
 */
describe('edits duplicating a memory the editor cannot see', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;
  let update: UpdateMemoryUseCase;
  let remove: DeleteMemoryUseCase;
  let restore: RestoreMemoryUseCase;

  const team = async () => {
    const tenant = await createTestTenant(db, 'hidden-dup');
    return { alice: await memberPrincipal(tenant, 'alice'), bob: await memberPrincipal(tenant, 'bob') };
  };
  const store = async (who: Principal, content: string, visibility: 'private' | 'team' = 'private') =>
    (await create.execute(who, newMemory(content, { visibility }))).id;
  const shareWith = (owner: Principal, id: number, user: Principal, permission: 'read' | 'write') =>
    db.tx.inTenant(owner, (tx) =>
      tx.query(
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, $5)`,
        [id, owner.userId, user.userId, owner.tenantId, permission],
      ),
    );
  const rowOf = (id: number) =>
    db.tx.asSystem(async (tx) => {
      const { rows } = await tx.query<{ content: string; duplicates_hidden: boolean }>(
        `SELECT content, duplicates_hidden FROM memories WHERE id = $1`,
        [id],
      );
      return rows[0];
    });
  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    return error instanceof MemoryError ? { code: error.code, message: error.message } : error;
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const writer = await memoryWriterFor(db.tx, limits);
    create = new CreateMemoryUseCase(writer);
    update = new UpdateMemoryUseCase(writer);
    remove = new DeleteMemoryUseCase(writer);
    restore = new RestoreMemoryUseCase(writer);
  });
  afterAll(async () => db.close());

  /** Alice's shared M1 and M3 (bob writes both); `hidden`: her private M2 holding `text`, unshared. */
  const world = async (text: string, hidden: boolean) => {
    const { alice, bob } = await team();
    const m1 = await store(alice, `first shared note ${randomUUID()}`);
    const m3 = await store(alice, `second shared note ${randomUUID()}`);
    for (const id of [m1, m3]) await shareWith(alice, id, bob, 'write');
    const m2 = hidden ? await store(alice, text) : null;
    return { alice, bob, m1, m2, m3 };
  };

  it('answers the editor the same whether or not the owner holds the text, now and on the next edit', async () => {
    const text = `Staging VPN pin rotates on Mondays ${randomUUID()}`;
    const seen = [];
    for (const hidden of [true, false]) {
      const { bob, m1, m2, m3 } = await world(text, hidden);
      const first = await update.execute(bob, m1, { content: text });
      // Storing the text a second time is refused naming the first copy, in both worlds.
      const second = await refusal(update.execute(bob, m3, { content: `  ${text} ` }));
      seen.push({ first, second: JSON.stringify(second).replaceAll(String(m1), 'M1') });
      expect(first).toEqual({ updated: m1 });
      expect(await rowOf(m1)).toEqual({ content: text, duplicates_hidden: hidden });
      if (m2 !== null) expect((await rowOf(m2)).content).toBe(text);
    }
    expect(seen[0].second).toBe(seen[1].second);
    expect(seen[0].second).toContain('duplicate_content');
    expect(seen[0].second).toContain('Memory M1 already has this content');
  });

  it('names the other memory when the editor may read it (team-visible or shared)', async () => {
    for (const reach of ['team', 'shared'] as const) {
      const { alice, bob } = await team();
      const text = `Deploys freeze on Fridays ${randomUUID()}`;
      const m1 = await store(alice, `editable ${randomUUID()}`);
      await shareWith(alice, m1, bob, 'write');
      const m2 = await store(alice, text, reach === 'team' ? 'team' : 'private');
      if (reach === 'shared') await shareWith(alice, m2, bob, 'read');
      expect(await refusal(update.execute(bob, m1, { content: text }))).toEqual({
        code: 'duplicate_content',
        message: `Memory ${m2} already has this content`,
      });
    }
  });

  it('keeps the owner’s own duplicate rules: refused edits and restores, one row per stored text', async () => {
    const text = `The release train leaves at noon ${randomUUID()}`;
    const { alice, bob, m1, m2 } = await world(text, true);
    await update.execute(bob, m1, { content: text });
    const m4 = await store(alice, `unrelated ${randomUUID()}`);
    // The owner sees both copies: the one that counts for the uniqueness rule is named first.
    expect(await refusal(update.execute(alice, m4, { content: text }))).toMatchObject({
      message: `Memory ${m2} already has this content`,
    });
    expect(await create.execute(alice, newMemory(text))).toMatchObject({ id: m2 });
    await remove.execute(alice, m2 as number);
    expect(await refusal(restore.execute(alice, m2 as number))).toMatchObject({
      code: 'duplicate_content',
      message: `Memory ${m1} already has this content; delete it first or keep it`,
    });
    // A new text for the marked row brings it back under the rule.
    await update.execute(bob, m1, { content: `${text} (moved)` });
    expect(await rowOf(m1)).toMatchObject({ duplicates_hidden: false });
  });

  it('fails on the index (23505) only when the other copy is written concurrently and not yet committed', async () => {
    const text = `Concurrent copy ${randomUUID()}`;
    const { alice, bob, m1 } = await world(text, false);
    const holder = new Client({ connectionString: inject('databaseUrl') });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash) VALUES ($1, $2, $3, $4)`,
        [alice.tenantId, alice.userId, text, contentHash(text)],
      );
      const pending = update.execute(bob, m1, { content: text }).then(
        () => null,
        (e: unknown) => e as { code?: string; name?: string },
      );
      await waitFor('the edit to wait on the uncommitted copy', async () => {
        const { rowCount } = await holder.query(
          `SELECT 1 FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        return rowCount ? true : undefined;
      });
      await holder.query('COMMIT');
      expect(await pending).toMatchObject({ name: 'QueryFailedError', code: '23505' });
    } finally {
      await holder.end();
    }
  });
});
