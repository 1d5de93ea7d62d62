import nodeVault from 'node-vault';

export type NodeVaultClient = nodeVault.client;

export interface NodeVaultClientOptions {
  readonly endpoint: string;
  readonly token?: string;
  /** Per-request timeout; node-vault (axios underneath) has none by default. */
  readonly timeoutMs: number;
  /** Send `GET ?list=1` instead of the custom `LIST` verb (some proxies drop unknown verbs). */
  readonly noCustomHTTPVerbs?: boolean;
}

/**
 * Builds a node-vault client that ignores ambient environment variables.
 *
 * node-vault falls back to `process.env.VAULT_ADDR`, `VAULT_TOKEN` and, notably, `VAULT_PREFIX` as
 * its URL path prefix. Our `VAULT_PREFIX` means something else (the KV folder), so the prefix is
 * forced to '' after construction (an empty option would fall through to the env variable).
 */
export function createNodeVaultClient(options: NodeVaultClientOptions): NodeVaultClient {
  const client = nodeVault({
    apiVersion: 'v1',
    endpoint: options.endpoint,
    token: options.token,
    noCustomHTTPVerbs: options.noCustomHTTPVerbs ?? false,
    requestOptions: { timeout: options.timeoutMs },
  });
  Object.assign(client, { pathPrefix: '', namespace: undefined });
  if (!options.token) client.token = '';
  return client;
}
