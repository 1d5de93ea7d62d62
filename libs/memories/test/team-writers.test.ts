import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { contentHash, CreateMemoryUseCase, DeleteMemoryUseCase } from '@app/memories';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';
import { MemoryWriteRepository } from '../src/write/memory-write.repository';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };

/**
 * Whether teammates share team memories, as the team store's check under its lock answers it
 * (`team_duplicate_after_lock`, asked by two probes of `memories_team_owner_live` since migration
 * 1763700000059): a teammate ordered before the caller counts as much as one after, and only a
 * teammate's live team memory counts.
 */
describe('teammates sharing team memories, asked by every team store', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;
  let remove: DeleteMemoryUseCase;
  const rows = new MemoryWriteRepository();

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const writer = await memoryWriterFor(db.tx, limits);
    create = new CreateMemoryUseCase(writer);
    remove = new DeleteMemoryUseCase(writer);
  });
  afterAll(async () => db.close());

  /** Three members in the order Postgres sorts their ids: `low` < `middle` < `high`. */
  const members = async () => {
    const tenant = await createTestTenant(db, 'team-writers');
    const users: Principal[] = [];
    for (const name of ['ann', 'ben', 'cat']) users.push(await memberPrincipal(tenant, name));
    const [low, middle, high] = users.sort((a, b) => a.userId.localeCompare(b.userId));
    return { low, middle, high };
  };
  const teammatesOf = (who: Principal) =>
    db.tx.inTenant(who, async (tx) => {
      const hash = contentHash(`a text nobody wrote ${randomUUID()}`);
      return (await rows.teamDuplicate(who, tx, hash, [])).teammates;
    });
  const store = async (who: Principal, visibility: 'team' | 'private') =>
    (await create.execute(who, newMemory(`${visibility} note ${randomUUID()}`, { visibility }))).id;

  it('says no while only the caller writes team memories, however many', async () => {
    const { middle } = await members();
    for (let i = 0; i < 40; i++) await store(middle, 'team');
    expect(await teammatesOf(middle)).toBe(false);
  });

  it('counts a teammate ordered before the caller and one ordered after', async () => {
    for (const side of ['low', 'high'] as const) {
      const team = await members();
      await store(team.middle, 'team');
      await store(team[side], 'team');
      expect({ side, teammates: await teammatesOf(team.middle) }).toEqual({ side, teammates: true });
      // And the other way round: the caller's own memory is what the teammate meets.
      expect(await teammatesOf(team[side])).toBe(true);
    }
  });

  it("does not count a teammate's private or deleted team memory", async () => {
    const { low, middle, high } = await members();
    await store(middle, 'team');
    await store(low, 'private');
    const gone = await store(high, 'team');
    expect(await teammatesOf(middle)).toBe(true);
    await remove.execute(high, gone);
    expect(await teammatesOf(middle)).toBe(false);
    expect(await teammatesOf(low)).toBe(true);
  });
});
