import { describe, expect, it, vi } from 'vitest';
import { TransactionRunner } from '@app/persistence';
import { SECRET_STORE, SecretStoreErrorCode } from '@app/secrets';
import { fakeTransactions, specPrincipal, useCaseWithFakes } from '@app/testing';
import { AuditWriter, MEMBER_SCOPES } from '@app/tenancy';
import { MemoryErrorCode } from '../../domain/memory.errors';
import type { MemoryAccess } from '../../read-model/memory-read.repository';
import { MemoryReadRepository } from '../../read-model/memory-read.repository';
import { RevealSecretUseCase } from './reveal-secret.use-case';

const VAULT_ROW = {
  isSensitive: true,
  secret: { ref: 'secret/data/t1/alice/5', version: 3 },
  content: 'db password: [REDACTED:password]',
  category: 'credential',
};

/** Memory 5 of alice, kept in Vault; `access` is what the caller may do with it. */
async function revealing(access: MemoryAccess | null, store: { kind: string } = { kind: 'vault' }) {
  const transactions = fakeTransactions();
  const reads = { access: vi.fn(async () => access), findSecret: vi.fn(async () => VAULT_ROW) };
  const audit = { record: vi.fn(async (..._args: unknown[]) => undefined) };
  const secretStore = { ...store, get: vi.fn(async () => 'db password: hunter2') };
  const useCase = await useCaseWithFakes(RevealSecretUseCase, [
    [TransactionRunner, transactions],
    [MemoryReadRepository, reads],
    [AuditWriter, audit],
    [SECRET_STORE, secretStore],
  ]);
  const actions = () =>
    audit.record.mock.calls.map((call) => call[2] as { action: string; details?: unknown });
  return { useCase, reads, secretStore, actions };
}

const access = (ownerId: string, shared = false): MemoryAccess => ({
  ownerId,
  deleted: false,
  team: false,
  reviewState: 'accepted',
  readable: true,
  writable: ownerId === 'alice',
  shared,
});

describe('RevealSecretUseCase (ports faked)', () => {
  it("reveals the owner's secret from the owner's path and audits the reveal", async () => {
    const { useCase, secretStore, actions } = await revealing(access('alice'));
    const revealed = await useCase.execute(specPrincipal('alice'), 5);
    expect(revealed).toEqual({
      id: 5,
      content: 'db password: hunter2',
      category: 'credential',
      source: 'vault',
    });
    expect(secretStore.get).toHaveBeenCalledWith(
      { tenantId: 't1', userId: 'alice', memoryId: 5 },
      { ref: VAULT_ROW.secret.ref, version: 3 },
    );
    expect(actions()).toEqual([
      { action: 'memory.secret.reveal', targetType: 'memory', targetId: 5, details: { source: 'vault' } },
    ]);
  });

  it("reveals a teammate's secret to a user it is shared with, read from the owner's path", async () => {
    const { useCase, secretStore } = await revealing(access('alice', true));
    await useCase.execute(specPrincipal('bob'), 5);
    expect((secretStore.get.mock.calls[0] as unknown[])[0]).toEqual({
      tenantId: 't1',
      userId: 'alice',
      memoryId: 5,
    });
  });

  it('refuses a teammate who only reads the team memory (403), audited as denied, the store untouched', async () => {
    const { useCase, secretStore, actions } = await revealing(access('alice'));
    await expect(useCase.execute(specPrincipal('bob'), 5)).rejects.toMatchObject({
      code: MemoryErrorCode.Forbidden,
    });
    expect(secretStore.get).not.toHaveBeenCalled();
    expect(actions()).toEqual([
      expect.objectContaining({ action: 'memory.secret.reveal.denied', details: { reason: 'not_owner' } }),
    ]);
  });

  it('answers 404 for a memory the caller cannot see, audited as denied', async () => {
    const { useCase, actions } = await revealing(null);
    await expect(useCase.execute(specPrincipal('bob'), 5)).rejects.toMatchObject({
      code: MemoryErrorCode.NotFound,
    });
    expect(actions()).toEqual([expect.objectContaining({ details: { reason: 'not_found' } })]);
  });

  it('refuses a key without secrets:read before reading anything', async () => {
    const scopes = MEMBER_SCOPES.filter((s) => s !== 'secrets:read');
    const { useCase, reads, actions } = await revealing(access('alice'));
    await expect(useCase.execute(specPrincipal('alice', { scopes }), 5)).rejects.toThrow(/secrets:read/);
    expect(reads.access).not.toHaveBeenCalled();
    expect(actions()).toEqual([expect.objectContaining({ details: { reason: 'missing_scope' } })]);
  });

  it('says which store a secret needs when this server is configured with another', async () => {
    const { useCase, secretStore } = await revealing(access('alice'), { kind: 'encrypted' });
    await expect(useCase.execute(specPrincipal('alice'), 5)).rejects.toMatchObject({
      code: SecretStoreErrorCode.Unavailable,
      message: expect.stringContaining('Vault'),
    });
    expect(secretStore.get).not.toHaveBeenCalled();
  });
});
