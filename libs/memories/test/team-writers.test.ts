import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { contentHash, CreateMemoryUseCase, DeleteMemoryUseCase } from '@app/memories';
import type { NewMemoryRows } from '@app/memories/testing';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWritePartsFor, memoryWriterFor } from '../../../test/support/memory-writes';
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

/**
 * A team store of a caller alone in the team (as far as its process knows) is one round trip: the
 * lock on the tenant and text goes just before the row's statement, which writes only when no
 * teammate shares team memories. A teammate's store of the same text that holds the lock keeps it
 * waiting, and once that commits the store answers the teammate's memory instead of a second row.
 */
describe('a team store alone in its team, against a teammate storing the same text', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;
  let rows: NewMemoryRows;
  /** What the meaning probe finds for a text (nothing unless a test says so). */
  const nearFor = new Map<string, { id: number; similarity: number }[]>();

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const parts = await memoryWritePartsFor(db.tx, limits);
    // The meaning probe (recall's, with embeddings) stands in here: with a probe in place a caller not
    // known to have teammates skips it and stores in one round trip.
    parts.probeSlot.fill({
      candidates: async (_principal, content) => nearFor.get(content) ?? [],
      candidatesOfEach: async (_principal, contents) => contents.map((c) => nearFor.get(c) ?? []),
    });
    rows = parts.rows;
    create = new CreateMemoryUseCase(parts.writer);
  });
  afterAll(async () => db.close());

  const liveRowsSaying = (tenantId: string, content: string) =>
    db.tx.asSystem(async (tx) => {
      const { rows: found } = await tx.query<{ id: string }>(
        `SELECT id FROM memories WHERE tenant_id = $1 AND content = $2 AND deleted_at IS NULL`,
        [tenantId, content],
      );
      return found.map((r) => Number(r.id));
    });

  it('waits for the teammate’s lock on the text and answers the teammate’s memory', async () => {
    const tenant = await createTestTenant(db, 'team-race');
    const ann = await memberPrincipal(tenant, 'ann');
    const ben = await memberPrincipal(tenant, 'ben');
    const content = `the release train leaves on Thursdays ${randomUUID()}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const rowWritten = new Promise<void>((resolve) => (written = resolve));
    // Ann's store takes the lock on the text, writes her team row and stays open.
    const first = db.tx.inTenant(ann, async (tx) => {
      const prepared = await rows.prepare(ann, rows.screenNew(newMemory(content, { visibility: 'team' })));
      const stored = await rows.store(ann, tx, prepared);
      if (stored === null) throw new Error('a store that does not carry the commit always decides');
      written();
      await held;
      return stored;
    });
    await rowWritten;
    let answered = false;
    const second = create.execute(ben, newMemory(content, { visibility: 'team' })).then((result) => {
      answered = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(b.id).toBe(a.id);
    expect(await liveRowsSaying(tenant.tenantId, content)).toEqual([a.id]);
  });

  it('writes its row when it is alone, and stores again in steps once a teammate shares team memories', async () => {
    const tenant = await createTestTenant(db, 'team-alone');
    const ann = await memberPrincipal(tenant, 'ann');
    const ben = await memberPrincipal(tenant, 'ben');
    const mine = `ben's first team note ${randomUUID()}`;
    const first = await create.execute(ben, newMemory(mine, { visibility: 'team' }));
    expect(await liveRowsSaying(tenant.tenantId, mine)).toEqual([first.id]);
    // Ann's team memory arrives through another process: ben's still believes him alone.
    const theirs = `ann's team note ${randomUUID()}`;
    const annRows = await memoryWritePartsFor(db.tx, limits);
    await new CreateMemoryUseCase(annRows.writer).execute(ann, newMemory(theirs, { visibility: 'team' }));
    const again = await create.execute(ben, newMemory(theirs, { visibility: 'team' }));
    expect(await liveRowsSaying(tenant.tenantId, theirs)).toEqual([again.id]);
    const other = `ben's second team note ${randomUUID()}`;
    const second = await create.execute(ben, newMemory(other, { visibility: 'team' }));
    expect(await liveRowsSaying(tenant.tenantId, other)).toEqual([second.id]);
  });

  it('once it knows teammates, probes, and answers a teammate’s memory with the same text or among the candidates', async () => {
    const tenant = await createTestTenant(db, 'team-probed');
    const ann = await memberPrincipal(tenant, 'ann');
    const ben = await memberPrincipal(tenant, 'ben');
    const annsWriter = new CreateMemoryUseCase((await memoryWritePartsFor(db.tx, limits)).writer);
    const said = `the on-call rotation changes on Mondays ${randomUUID()}`;
    const annsId = (await annsWriter.execute(ann, newMemory(said, { visibility: 'team' }))).id;
    // Ben's first store meets ann's team memories: written after the probe, in steps.
    const own = `ben's own note ${randomUUID()}`;
    const first = await create.execute(ben, newMemory(own, { visibility: 'team' }));
    expect(await liveRowsSaying(tenant.tenantId, own)).toEqual([first.id]);
    // Probed from now on: the same text is ann's memory, and so is a restatement the probe finds.
    expect((await create.execute(ben, newMemory(said, { visibility: 'team' }))).id).toBe(annsId);
    const restated = `on Mondays the on-call rotation changes ${randomUUID()}`;
    nearFor.set(restated, [{ id: annsId, similarity: 0.97 }]);
    expect((await create.execute(ben, newMemory(restated, { visibility: 'team' }))).id).toBe(annsId);
    expect(await liveRowsSaying(tenant.tenantId, said)).toEqual([annsId]);
    expect(await liveRowsSaying(tenant.tenantId, restated)).toEqual([]);
    // A candidate that is not a teammate's live team memory stops nothing.
    const fresh = `a new fact ${randomUUID()}`;
    nearFor.set(fresh, [{ id: first.id, similarity: 0.97 }]);
    const written = await create.execute(ben, newMemory(fresh, { visibility: 'team' }));
    expect(await liveRowsSaying(tenant.tenantId, fresh)).toEqual([written.id]);
  });
});
