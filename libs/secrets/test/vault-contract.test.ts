import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeVault } from '@app/testing';
import { createNodeVaultClient, type NodeVaultClient } from '@app/secrets/testing';

/**
 * One set of assertions about Vault's HTTP API, run through the real node-vault client against
 * the fake and, when VAULT_ADDR (+ VAULT_TOKEN) point at a real `vault server -dev`, against that
 * too. The real target is skipped only when VAULT_ADDR is absent: that is an environment condition
 * (no Vault binary in CI here), not a placeholder. Fault injection is fake-only and lives below.
 */
interface Target {
  readonly name: string;
  setUp(): Promise<{ address: string; token: string; mount: string }>;
  tearDown(): Promise<void>;
}

const fake = new FakeVault();
const targets: Target[] = [
  {
    name: 'fake vault',
    setUp: async () => ({ address: await fake.start(), token: fake.rootToken, mount: fake.mount }),
    tearDown: () => fake.stop(),
  },
];
const realAddress = process.env.VAULT_ADDR;
const realToken = process.env.VAULT_TOKEN ?? '';

interface VaultFailure {
  readonly status: number;
  readonly errors: readonly string[];
}

async function failureOf(call: Promise<unknown>): Promise<VaultFailure> {
  try {
    await call;
  } catch (error) {
    const response = (error as { response?: { statusCode: number; body?: { errors?: string[] } } }).response;
    if (response) return { status: response.statusCode, errors: response.body?.errors ?? [] };
    throw error;
  }
  throw new Error('expected the Vault call to fail');
}

function contractSuite(target: Target): void {
  describe(`Vault HTTP API contract: ${target.name}`, () => {
    let vault: NodeVaultClient;
    let listing: NodeVaultClient;
    let anonymous: NodeVaultClient;
    let mount = 'secret';
    // A fresh folder per run keeps the suite repeatable against a long-lived dev server.
    const folder = `contract-${randomBytes(6).toString('hex')}`;

    beforeAll(async () => {
      const env = await target.setUp();
      mount = env.mount;
      vault = createNodeVaultClient({ endpoint: env.address, token: env.token, timeoutMs: 5000 });
      listing = createNodeVaultClient({
        endpoint: env.address,
        token: env.token,
        timeoutMs: 5000,
        noCustomHTTPVerbs: true,
      });
      anonymous = createNodeVaultClient({ endpoint: env.address, timeoutMs: 5000 });
    });
    afterAll(() => target.tearDown());

    it('reports health and seal status without a token', async () => {
      const health = await anonymous.health();
      expect(health).toMatchObject({ initialized: true, sealed: false });
      const seal = await anonymous.status();
      expect(seal).toMatchObject({ initialized: true, sealed: false, type: 'shamir' });
    });

    it('looks up its own token and refuses requests without one', async () => {
      const self = await vault.tokenLookupSelf();
      expect(self.data).toMatchObject({ policies: expect.arrayContaining(['root']) });
      const failure = await failureOf(anonymous.read(`${mount}/data/${folder}/x`));
      expect(failure.status).toBe(403);
      expect(failure.errors.join(' ')).toContain('permission denied');
    });

    it('creates with cas=0, rejects a stale cas, and versions every write', async () => {
      const path = `${mount}/data/${folder}/a`;
      const created = await vault.write(path, { data: { content: 'one' }, options: { cas: 0 } });
      expect(created.data).toMatchObject({ version: 1, destroyed: false, deletion_time: '' });
      const conflict = await failureOf(
        vault.write(path, { data: { content: 'again' }, options: { cas: 0 } }),
      );
      expect(conflict.status).toBe(400);
      expect(conflict.errors.join(' ')).toContain(
        'check-and-set parameter did not match the current version',
      );
      const second = await vault.write(path, { data: { content: 'two' }, options: { cas: 1 } });
      expect(second.data.version).toBe(2);
      expect((await vault.read(path)).data).toMatchObject({
        data: { content: 'two' },
        metadata: { version: 2 },
      });
      expect((await vault.read(`${path}?version=1`)).data.data).toEqual({ content: 'one' });
    });

    it('soft-deletes, undeletes and destroys versions', async () => {
      const path = `${folder}/b`;
      await vault.write(`${mount}/data/${path}`, { data: { content: 'v1' }, options: { cas: 0 } });
      await vault.write(`${mount}/data/${path}`, { data: { content: 'v2' }, options: { cas: 1 } });
      await vault.delete(`${mount}/data/${path}`);
      expect((await failureOf(vault.read(`${mount}/data/${path}`))).status).toBe(404);
      // A soft delete keeps the version number, so a create-only write still conflicts.
      expect(
        (
          await failureOf(
            vault.write(`${mount}/data/${path}`, { data: { content: 'x' }, options: { cas: 0 } }),
          )
        ).status,
      ).toBe(400);
      await vault.write(`${mount}/undelete/${path}`, { versions: [2] });
      expect((await vault.read(`${mount}/data/${path}`)).data.data).toEqual({ content: 'v2' });
      await vault.write(`${mount}/delete/${path}`, { versions: [1] });
      expect((await failureOf(vault.read(`${mount}/data/${path}?version=1`))).status).toBe(404);
      await vault.write(`${mount}/destroy/${path}`, { versions: [2] });
      expect((await failureOf(vault.read(`${mount}/data/${path}`))).status).toBe(404);
      const meta = await vault.read(`${mount}/metadata/${path}`);
      expect(meta.data).toMatchObject({
        current_version: 2,
        versions: { '1': { destroyed: false }, '2': { destroyed: true } },
      });
      expect(meta.data.versions['1'].deletion_time).not.toBe('');
    });

    it('lists keys with LIST and with GET ?list=true, and forgets a secret when its metadata is deleted', async () => {
      await vault.write(`${mount}/data/${folder}/list/one`, { data: { content: '1' } });
      await vault.write(`${mount}/data/${folder}/list/sub/two`, { data: { content: '2' } });
      expect((await vault.list(`${mount}/metadata/${folder}/list`)).data.keys).toEqual(['one', 'sub/']);
      expect((await listing.list(`${mount}/metadata/${folder}/list`)).data.keys).toEqual(['one', 'sub/']);
      await vault.delete(`${mount}/metadata/${folder}/list/one`);
      expect((await failureOf(vault.read(`${mount}/data/${folder}/list/one`))).status).toBe(404);
      expect((await failureOf(vault.read(`${mount}/metadata/${folder}/list/one`))).status).toBe(404);
      expect((await vault.list(`${mount}/metadata/${folder}/list`)).data.keys).toEqual(['sub/']);
      expect((await failureOf(vault.list(`${mount}/metadata/${folder}/nothing-here`))).status).toBe(404);
    });
  });
}

contractSuite(targets[0]);
// Environment condition, not a placeholder: without a real `vault server -dev` there is nothing to compare with.
describe.skipIf(realAddress === undefined)('real Vault (VAULT_ADDR)', () => {
  contractSuite({
    name: `real vault at ${realAddress ?? '(unset)'}`,
    setUp: async () => ({ address: realAddress ?? '', token: realToken, mount: 'secret' }),
    tearDown: async () => undefined,
  });
});

describe('fake vault: auth endpoints and fault switches (fake only)', () => {
  const vaultFake = new FakeVault({
    approle: { roleId: 'role-1', secretId: 'secret-1' },
    kubernetes: { role: 'memory-service', jwt: 'header.payload.sig' },
    loginTokenTtlSeconds: 60,
  });
  let address = '';
  const client = (token?: string, timeoutMs = 2000): NodeVaultClient =>
    createNodeVaultClient({ endpoint: address, token, timeoutMs });

  beforeAll(async () => {
    address = await vaultFake.start();
  });
  afterAll(() => vaultFake.stop());

  it('logs in with AppRole and Kubernetes, and renews a token by its increment', async () => {
    const vault = client();
    const login = await vault.approleLogin({ role_id: 'role-1', secret_id: 'secret-1' });
    expect(login.auth).toMatchObject({ lease_duration: 60, renewable: true });
    expect(vault.token).toBe(login.auth.client_token);
    const renewed = await vault.tokenRenewSelf({ increment: 600 });
    expect(renewed.auth.lease_duration).toBe(600);
    expect((await vault.tokenLookupSelf()).data).toMatchObject({
      ttl: 600,
      renewable: true,
      path: 'auth/approle/login',
    });
    expect((await failureOf(client().approleLogin({ role_id: 'role-1', secret_id: 'wrong' }))).status).toBe(
      400,
    );
    const k8s = client();
    // node-vault 0.12 renders `{{kubernetesPath}}` from the call's arguments, so the mount must be passed.
    await k8s.kubernetesLogin({
      role: 'memory-service',
      jwt: 'header.payload.sig',
      mount_point: 'kubernetes',
    });
    expect((await k8s.tokenLookupSelf()).data.path).toBe('auth/kubernetes/login');
    expect(
      (
        await failureOf(
          client().kubernetesLogin({ role: 'memory-service', jwt: 'forged', mount_point: 'kubernetes' }),
        )
      ).status,
    ).toBe(403);
  });

  it('expires tokens after their TTL and on demand', async () => {
    const shortLived = vaultFake.issueToken({ ttlSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await failureOf(client(shortLived).tokenLookupSelf())).status).toBe(403);
    const token = vaultFake.issueToken({ ttlSeconds: 600 });
    vaultFake.expireToken(token);
    expect((await failureOf(client(token).read('secret/data/x'))).errors).toEqual(['permission denied']);
    expect(await client(vaultFake.rootToken).tokenLookupSelf()).toBeTruthy();
  });

  it('answers 503 when sealed, with health 503 and seal-status sealed=true', async () => {
    vaultFake.faults.sealed = true;
    try {
      expect((await failureOf(client(vaultFake.rootToken).read('secret/data/x'))).errors).toEqual([
        'Vault is sealed',
      ]);
      // node-vault resolves sys/health whatever the status; the body says sealed.
      expect(await client().health()).toMatchObject({ sealed: true });
      expect(await client().status()).toMatchObject({ sealed: true });
    } finally {
      vaultFake.resetFaults();
    }
  });

  it('injects 429/500 for the next N requests, then recovers', async () => {
    vaultFake.faults.failNext = { status: 429, count: 1 };
    expect((await failureOf(client(vaultFake.rootToken).tokenLookupSelf())).status).toBe(429);
    vaultFake.faults.failNext = { status: 500, count: 1 };
    expect((await failureOf(client(vaultFake.rootToken).tokenLookupSelf())).status).toBe(500);
    expect(await client(vaultFake.rootToken).tokenLookupSelf()).toBeTruthy();
  });

  it('delays answers, blackholes requests until the client times out, and sends malformed JSON', async () => {
    vaultFake.faults.latencyMs = 150;
    const started = Date.now();
    await client(vaultFake.rootToken).tokenLookupSelf();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    vaultFake.resetFaults();

    vaultFake.faults.blackhole = true;
    const blackholeStart = Date.now();
    await expect(client(vaultFake.rootToken, 300).tokenLookupSelf()).rejects.toThrow(/timeout/i);
    expect(Date.now() - blackholeStart).toBeLessThan(2000);
    vaultFake.resetFaults();

    vaultFake.faults.malformedJson = true;
    // axios hands back the raw string when JSON parsing fails, so callers must check the shape.
    const raw: unknown = await client(vaultFake.rootToken).read('secret/data/x');
    expect(typeof raw).toBe('string');
    vaultFake.resetFaults();
  });
});
