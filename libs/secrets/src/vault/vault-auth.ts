import { readFile } from 'node:fs/promises';
import type { NodeVaultClient } from './node-vault-client';

/** How the service proves itself to Vault. */
export type VaultAuthMethod =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'approle'; readonly roleId: string; readonly secretId: string }
  | { readonly kind: 'kubernetes'; readonly role: string; readonly tokenPath: string };

export interface VaultLease {
  /** Seconds left; 0 = never expires (root/periodic tokens report 0). */
  readonly ttlSeconds: number;
  readonly renewable: boolean;
}

interface AuthResponse {
  readonly auth?: {
    readonly client_token?: string;
    readonly lease_duration?: number;
    readonly renewable?: boolean;
  };
}
interface LookupResponse {
  readonly data?: { readonly ttl?: number; readonly renewable?: boolean };
}

/** True when a fresh login can replace a rejected token (a static token cannot be replaced). */
export function canRelogin(method: VaultAuthMethod): boolean {
  return method.kind !== 'token';
}

/** Logs in (or adopts a static token) and reports the token's lease. Sets `client.token`. */
export async function login(client: NodeVaultClient, method: VaultAuthMethod): Promise<VaultLease> {
  switch (method.kind) {
    case 'token': {
      client.token = method.token;
      const self = (await client.tokenLookupSelf()) as LookupResponse;
      return { ttlSeconds: self.data?.ttl ?? 0, renewable: self.data?.renewable ?? false };
    }
    case 'approle':
      return fromAuth(
        client,
        await client.approleLogin({ role_id: method.roleId, secret_id: method.secretId }),
      );
    case 'kubernetes': {
      // Projected service-account tokens rotate on disk, so read the file on every login.
      const jwt = (await readFile(method.tokenPath, 'utf8')).trim();
      // node-vault 0.12 renders the mount from the call's arguments, not from its own kubernetesPath.
      return fromAuth(
        client,
        await client.kubernetesLogin({ role: method.role, jwt, mount_point: 'kubernetes' }),
      );
    }
  }
}

export async function renewSelf(client: NodeVaultClient): Promise<VaultLease> {
  return fromAuth(client, await client.tokenRenewSelf());
}

function fromAuth(client: NodeVaultClient, response: unknown): VaultLease {
  const auth = (response as AuthResponse).auth;
  if (!auth?.client_token) throw new Error('Vault login answered without a client token');
  client.token = auth.client_token;
  return { ttlSeconds: auth.lease_duration ?? 0, renewable: auth.renewable ?? false };
}
