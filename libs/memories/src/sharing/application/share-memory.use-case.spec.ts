import { describe, expect, it, vi } from 'vitest';
import { TransactionRunner } from '@app/persistence';
import { fakeTransactions, specPrincipal, useCaseWithFakes } from '@app/testing';
import { AuditWriter } from '@app/tenancy';
import { MemoryErrorCode } from '../../domain/memory.errors';
import { MemoryReadRepository, type MemoryAccess } from '../../read-model/memory-read.repository';
import { ShareRepository } from '../adapters/share.repository';
import { ShareMemoryUseCase } from './share-memory.use-case';

const users: Record<string, string> = { alice: 'alice', bob: 'bob', carol: 'carol' };

/** Memory 5 belongs to alice; `access` says what the caller may do with it. */
async function sharing(access: MemoryAccess | null) {
  const transactions = fakeTransactions();
  const reads = {
    access: vi.fn(async () => access),
    findLive: vi.fn(async () => ({ id: 5 })),
  };
  const shares = {
    findUserId: vi.fn(async (_p: unknown, _tx: unknown, name: string) => users[name] ?? null),
    upsertMemoryShare: vi.fn(async () => undefined),
  };
  const audit = { record: vi.fn(async () => undefined) };
  const useCase = await useCaseWithFakes(ShareMemoryUseCase, [
    [TransactionRunner, transactions],
    [MemoryReadRepository, reads],
    [ShareRepository, shares],
    [AuditWriter, audit],
  ]);
  return { useCase, shares, audit, transactions };
}

const aliceOwns = (caller: { readable: boolean; writable: boolean; shared: boolean }): MemoryAccess => ({
  ownerId: 'alice',
  deleted: false,
  team: false,
  reviewState: 'accepted',
  ...caller,
});

describe('ShareMemoryUseCase (ports faked)', () => {
  it("writes the share under the owner's scope and audits it", async () => {
    const { useCase, shares, audit, transactions } = await sharing(
      aliceOwns({ readable: true, writable: true, shared: false }),
    );
    const answer = await useCase.execute(specPrincipal('alice'), 5, {
      sharedWith: 'bob',
      permission: 'write',
    });
    expect(answer).toEqual({ shared: 5, with: 'bob', permission: 'write' });
    expect(shares.upsertMemoryShare).toHaveBeenCalledWith(
      { tenantId: 't1', userId: 'alice' },
      transactions.tx,
      {
        memoryId: 5,
        userId: 'bob',
        permission: 'write',
      },
    );
    expect(audit.record).toHaveBeenCalledTimes(1);
  });

  it('lets an admin share a teammate memory, still under its owner', async () => {
    const { useCase, shares } = await sharing(aliceOwns({ readable: true, writable: true, shared: false }));
    await useCase.execute(specPrincipal('carol', { admin: true }), 5, {
      sharedWith: 'bob',
      permission: 'read',
    });
    expect((shares.upsertMemoryShare.mock.calls[0] as unknown[])[0]).toEqual({
      tenantId: 't1',
      userId: 'alice',
    });
  });

  it('answers 403 to a teammate who may read (even write) the memory, and writes nothing', async () => {
    const { useCase, shares, audit } = await sharing(
      aliceOwns({ readable: true, writable: true, shared: true }),
    );
    const refused = useCase.execute(specPrincipal('bob'), 5, { sharedWith: 'carol', permission: 'read' });
    await expect(refused).rejects.toMatchObject({ code: MemoryErrorCode.Forbidden });
    expect(shares.upsertMemoryShare).not.toHaveBeenCalled();
    expect(audit.record).not.toHaveBeenCalled();
  });

  it('answers 404 for a memory the caller cannot see, the same as for one that does not exist', async () => {
    for (const access of [null, aliceOwns({ readable: false, writable: false, shared: false })]) {
      const { useCase, shares } = await sharing(access);
      const refused = useCase.execute(specPrincipal('bob'), 5, { sharedWith: 'carol', permission: 'read' });
      await expect(refused).rejects.toMatchObject({ code: MemoryErrorCode.NotFound });
      expect(shares.upsertMemoryShare).not.toHaveBeenCalled();
    }
  });

  it('refuses sharing with the owner and with a user the tenant does not have', async () => {
    const { useCase, shares } = await sharing(aliceOwns({ readable: true, writable: true, shared: false }));
    const alice = specPrincipal('alice');
    await expect(
      useCase.execute(alice, 5, { sharedWith: 'alice', permission: 'read' }),
    ).rejects.toMatchObject({
      code: MemoryErrorCode.ShareWithSelf,
    });
    await expect(
      useCase.execute(alice, 5, { sharedWith: 'mallory', permission: 'read' }),
    ).rejects.toMatchObject({
      code: MemoryErrorCode.UserNotFound,
    });
    expect(shares.upsertMemoryShare).not.toHaveBeenCalled();
  });
});
