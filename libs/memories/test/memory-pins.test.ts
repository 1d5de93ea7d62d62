import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  GetMemoryUseCase,
  ListMemoriesUseCase,
  MemoryError,
  MemoryErrorCode,
  PinError,
  PinErrorCode,
  PinMemoryUseCase,
  PurgeMemoryUseCase,
  UnpinMemoryUseCase,
  UpdateMemoryUseCase,
  type NewMemory,
} from '@app/memories';
import { MemoryReadRepository, PinRepository, UserDataRepository } from '@app/memories/testing';
import { deriveKeyEncryptionKey, LocalSecretStore } from '@app/secrets/testing';
import { ALL_SCOPES, AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWritePartsFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 100, maxListLimit: 100 };

/**
 * Pins against real Postgres: the use cases' rules and, underneath, the row-level security of
 * `memory_pins` (migration 1763700000047) on its own.
 */
describe('memory pins against real Postgres', () => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  let admin: Principal;
  let dave: Principal;
  let create: CreateMemoryUseCase;
  let pin: PinMemoryUseCase;
  let unpin: UnpinMemoryUseCase;
  let get: GetMemoryUseCase;
  let list: ListMemoriesUseCase;
  let writerParts: Awaited<ReturnType<typeof memoryWritePartsFor>>;

  const store = async (who: Principal, content: string, overrides: Partial<NewMemory> = {}) =>
    (await create.execute(who, newMemory(content, { visibility: 'team', ...overrides }))).id;
  const codeOf = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error instanceof MemoryError || error instanceof PinError).toBe(true);
    return (error as MemoryError | PinError).code;
  };
  /** The pin rows `who` can read, as `scope:memory`. */
  const pinRows = (who: Principal) =>
    db.tx.inTenant(who, async (tx) => {
      const { rows } = await tx.query<{ scope: string; memory_id: string }>(
        `SELECT scope, memory_id FROM memory_pins ORDER BY memory_id, scope`,
      );
      return rows.map((r) => `${r.scope}:${r.memory_id}`);
    });
  const pinsOnDetail = async (who: Principal, id: number) => (await get.withLinks(who, id)).memory.pinned;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const tenant = await createTestTenant(db, 'pins');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    admin = { ...(await memberPrincipal(tenant, 'root')), scopes: ALL_SCOPES };
    dave = await memberPrincipal(await createTestTenant(db, 'pins-other'), 'dave');
    const secrets = new LocalSecretStore(deriveKeyEncryptionKey(randomBytes(32).toString('hex')));
    writerParts = await memoryWritePartsFor(db.tx, limits, secrets, { defaultVisibility: 'team' });
    create = new CreateMemoryUseCase(writerParts.writer);
    const reads = new MemoryReadRepository();
    const pins = new PinRepository();
    pin = new PinMemoryUseCase(db.tx, reads, pins, new AuditWriter());
    unpin = new UnpinMemoryUseCase(db.tx, reads, pins, new AuditWriter());
    get = new GetMemoryUseCase(db.tx, reads);
    list = new ListMemoriesUseCase(db.tx, reads, limits);
  });
  afterAll(async () => db?.close());

  it('a personal pin is the pinner’s own: shown on their detail and list, invisible to teammates', async () => {
    const id = await store(bob, 'We deploy with helm 3 from the release branch');
    expect(await pin.execute(alice, id, 'user')).toEqual({ id, scope: 'user', pinned: true, changed: true });
    expect(await pin.execute(alice, id, 'user')).toMatchObject({ changed: false });

    expect(await pinsOnDetail(alice, id)).toEqual(['user']);
    expect(await pinsOnDetail(bob, id)).toEqual([]);
    const listed = await list.execute(alice, { limit: 100 });
    expect(listed.memories.find((m) => m.id === id)?.pinned).toEqual(['user']);
    expect(await pinRows(alice)).toContain(`user:${id}`);
    expect(await pinRows(bob)).not.toContain(`user:${id}`);

    // The pin names the memory only: its row is unchanged.
    expect((await get.execute(bob, id)).updatedAt).toBe((await get.execute(alice, id)).updatedAt);
    expect(await unpin.execute(alice, id, 'user')).toEqual({
      id,
      scope: 'user',
      pinned: false,
      changed: true,
    });
    expect(await unpin.execute(alice, id, 'user')).toMatchObject({ changed: false });
    expect(await pinsOnDetail(alice, id)).toEqual([]);
  });

  it('a team pin needs an admin key and a team memory, and every teammate sees it', async () => {
    const id = await store(alice, 'Every release needs a changelog entry');
    expect(await codeOf(pin.execute(alice, id, 'team'))).toBe(PinErrorCode.TeamPinNeedsAdmin);
    expect(await pin.execute(admin, id, 'team')).toMatchObject({ scope: 'team', changed: true });
    await pin.execute(bob, id, 'user');
    expect(await pinsOnDetail(bob, id)).toEqual(['team', 'user']);
    expect(await pinsOnDetail(alice, id)).toEqual(['team']);
    expect(await codeOf(unpin.execute(bob, id, 'team'))).toBe(PinErrorCode.TeamPinNeedsAdmin);

    const own = await store(admin, 'Only for the admin', { visibility: 'private' });
    expect(await codeOf(pin.execute(admin, own, 'team'))).toBe(PinErrorCode.TeamPinNeedsTeamMemory);
  });

  it('row-level security refuses the same writes made directly', async () => {
    const id = await store(alice, 'The staging cluster runs in eu-west-1');
    const insert = (who: Principal, sql: string, params: unknown[]) =>
      db.tx
        .inTenant(who, (tx) => tx.query(sql, params))
        .then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        );
    // A member writing a team pin, or a personal pin for someone else: refused by the policies.
    expect(
      await insert(alice, `INSERT INTO memory_pins (tenant_id, memory_id, scope) VALUES ($1, $2, 'team')`, [
        alice.tenantId,
        id,
      ]),
    ).toBe('42501');
    expect(
      await insert(
        alice,
        `INSERT INTO memory_pins (tenant_id, memory_id, scope, user_id) VALUES ($1, $2, 'user', $3)`,
        [alice.tenantId, id, bob.userId],
      ),
    ).toBe('42501');
    // A teammate's private memory cannot be pinned: the caller does not see it.
    const secret = await store(bob, 'Bob keeps this to himself', { visibility: 'private' });
    expect(
      await insert(
        alice,
        `INSERT INTO memory_pins (tenant_id, memory_id, scope, user_id) VALUES ($1, $2, 'user', $3)`,
        [alice.tenantId, secret, alice.userId],
      ),
    ).toBe('42501');
    // An admin may not delete a member's personal pin.
    await pin.execute(bob, id, 'user');
    const removed = await db.tx.inTenant(admin, (tx) =>
      tx.query(`DELETE FROM memory_pins WHERE memory_id = $1 RETURNING id`, [id]),
    );
    expect(removed.rows).toEqual([]);
    expect(await pinsOnDetail(bob, id)).toEqual(['user']);
  });

  it('answers 404 for a memory the caller cannot see, another tenant’s included', async () => {
    const secret = await store(bob, 'Bob’s private note about the VPN', { visibility: 'private' });
    expect(await codeOf(pin.execute(alice, secret, 'user'))).toBe(MemoryErrorCode.NotFound);
    // An admin without access to private memories does not see it either.
    expect(await codeOf(pin.execute(admin, secret, 'team'))).toBe(MemoryErrorCode.NotFound);
    expect(await codeOf(unpin.execute(alice, secret, 'user'))).toBe(MemoryErrorCode.NotFound);
    const team = await store(alice, 'A team fact of another tenant’s neighbour');
    expect(await codeOf(pin.execute(dave, team, 'user'))).toBe(MemoryErrorCode.NotFound);
  });

  it('a pin shows only while its memory is visible, and goes with a purge and an erasure', async () => {
    const id = await store(bob, 'Rotate the deploy keys every quarter');
    await pin.execute(alice, id, 'user');
    await pin.execute(admin, id, 'team');
    // Made private: alice no longer sees the memory, nor the pins on it.
    await new UpdateMemoryUseCase(writerParts.writer).execute(bob, id, { visibility: 'private' });
    expect(await pinRows(alice)).not.toContain(`user:${id}`);
    await new UpdateMemoryUseCase(writerParts.writer).execute(bob, id, { visibility: 'team' });
    expect(await pinsOnDetail(alice, id)).toEqual(['team', 'user']);

    await new DeleteMemoryUseCase(writerParts.writer).execute(bob, id);
    await new PurgeMemoryUseCase(writerParts.writer).execute(bob, id);
    const left = await db.tx.asSystem(
      async (tx) => (await tx.query(`SELECT 1 FROM memory_pins WHERE memory_id = $1`, [id])).rows.length,
    );
    expect(left).toBe(0);

    const teammates = await store(bob, 'A fact of bob’s that alice pins');
    await pin.execute(alice, teammates, 'user');
    const erased = await db.tx.asSystem((tx) =>
      new UserDataRepository().erase(tx, { tenantId: alice.tenantId, userId: alice.userId }),
    );
    expect(erased.pins).toBeGreaterThan(0);
    const remaining = await db.tx.asSystem(
      async (tx) =>
        (await tx.query(`SELECT 1 FROM memory_pins WHERE user_id = $1`, [alice.userId])).rows.length,
    );
    expect(remaining).toBe(0);
  });
});
