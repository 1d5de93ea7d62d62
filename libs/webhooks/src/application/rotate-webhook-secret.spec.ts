import { describe, expect, it } from 'vitest';
import type { TransactionRunner } from '@app/persistence';
import type { Actor, AuditWriter } from '@app/tenancy';
import type { WebhookRepository } from '../adapters/webhook.repository';
import type { WebhookEndpoint } from '../domain/webhook-endpoint';
import { WebhookErrorCode } from '../domain/webhook.errors';
import { RotateWebhookSecretUseCase } from './manage-webhook.use-case';
import type { WebhookSecrets } from './webhook-secrets';

// Two rotations of one endpoint's secret at the same moment: both read version 1, one commits
// version 2, the other finds version 2 under its lock. The loser's new secret is forgotten and it
// answers 409 (the endpoint exists; another request's secret stands), not 404.

const ID = '0b9c6c2e-3f7a-4c51-9d7e-4f2b8a1e6d10';
const admin = { kind: 'system', tenantId: 't1' } as unknown as Actor;

function rotation(versions: { read: number; locked: number | null }) {
  const forgotten: number[][] = [];
  const endpoint = (version: number) => ({ id: ID, secretVersion: version }) as unknown as WebhookEndpoint;
  const endpoints = {
    find: async (_s: unknown, _tx: unknown, _id: string, options?: { lock?: boolean }) => {
      if (!options?.lock) return endpoint(versions.read);
      return versions.locked === null ? null : endpoint(versions.locked);
    },
    rotate: async () => endpoint(versions.read + 1),
  } as unknown as WebhookRepository;
  const secrets = {
    create: async () => ({ secret: 'whsec_new', stored: { ref: 'ref', version: 1 } }),
    forget: async (_t: string, _id: string, which: number[]) => void forgotten.push(which),
  } as unknown as WebhookSecrets;
  const tx = {
    inTenant: async (_s: unknown, work: (tx: unknown) => Promise<unknown>) => work({}),
  } as unknown as TransactionRunner;
  const audit = { record: async () => undefined } as unknown as AuditWriter;
  return { useCase: new RotateWebhookSecretUseCase(tx, endpoints, secrets, audit), forgotten };
}

describe('RotateWebhookSecretUseCase', () => {
  it('answers 409 webhook_rotation_conflict to the rotation that lost the race, and forgets its secret', async () => {
    const { useCase, forgotten } = rotation({ read: 1, locked: 2 });
    await expect(useCase.execute(admin, ID, 60)).rejects.toMatchObject({
      code: WebhookErrorCode.RotationConflict,
      kind: 'conflict',
    });
    expect(forgotten).toEqual([[2]]);
  });

  it('answers 404 when the endpoint was deleted meanwhile', async () => {
    const { useCase, forgotten } = rotation({ read: 1, locked: null });
    await expect(useCase.execute(admin, ID, 60)).rejects.toMatchObject({
      code: WebhookErrorCode.EndpointNotFound,
    });
    expect(forgotten).toEqual([[2]]);
  });

  it('rotates when nothing raced it, and forgets the secret before the previous one', async () => {
    const { useCase, forgotten } = rotation({ read: 3, locked: 3 });
    const rotated = await useCase.execute(admin, ID, 60);
    expect(rotated.secret).toBe('whsec_new');
    expect(rotated.endpoint.secretVersion).toBe(4);
    expect(forgotten).toEqual([[2]]);
  });
});
