import { randomBytes } from 'node:crypto';

export interface FakeTokenOptions {
  /** Seconds; 0 means the token never expires (like Vault's root token). */
  readonly ttlSeconds?: number;
  readonly renewable?: boolean;
  readonly policies?: readonly string[];
  /** Vault's auth path that issued it, shown by lookup-self. */
  readonly path?: string;
  /** Use this exact id (e.g. a known root token). */
  readonly id?: string;
}

export interface FakeToken {
  readonly id: string;
  readonly accessor: string;
  readonly policies: readonly string[];
  readonly path: string;
  readonly renewable: boolean;
  readonly creationTtl: number;
  readonly issuedAt: number;
  /** Epoch ms; 0 = never. */
  expiresAt: number;
}

/** Token store with Vault's TTL semantics; `now` is injectable so tests can move time. */
export class FakeVaultTokens {
  private readonly tokens = new Map<string, FakeToken>();

  constructor(private readonly now: () => number) {}

  issue(options: FakeTokenOptions = {}): FakeToken {
    const ttl = options.ttlSeconds ?? 0;
    const token: FakeToken = {
      id: options.id ?? `hvs.${randomBytes(18).toString('base64url')}`,
      accessor: randomBytes(12).toString('hex'),
      policies: options.policies ?? ['default'],
      path: options.path ?? 'auth/token/create',
      renewable: options.renewable ?? ttl > 0,
      creationTtl: ttl,
      issuedAt: this.now(),
      expiresAt: ttl > 0 ? this.now() + ttl * 1000 : 0,
    };
    this.tokens.set(token.id, token);
    return token;
  }

  /** The live token for an id, or undefined when unknown or expired. */
  find(id: string | undefined): FakeToken | undefined {
    if (!id) return undefined;
    const token = this.tokens.get(id);
    if (!token) return undefined;
    if (token.expiresAt !== 0 && token.expiresAt <= this.now()) {
      this.tokens.delete(id);
      return undefined;
    }
    return token;
  }

  remainingSeconds(token: FakeToken): number {
    return token.expiresAt === 0 ? 0 : Math.max(0, Math.round((token.expiresAt - this.now()) / 1000));
  }

  /** Extends by `increment` seconds (default: the creation TTL), as renew-self does. */
  renew(token: FakeToken, increment?: number): void {
    const seconds = increment && increment > 0 ? increment : token.creationTtl;
    token.expiresAt = this.now() + seconds * 1000;
  }

  revoke(id: string): void {
    this.tokens.delete(id);
  }

  /** Fault switch: every non-root token becomes invalid, as after a Vault-side revocation. */
  revokeAllExcept(keep: string): void {
    for (const id of this.tokens.keys()) if (id !== keep) this.tokens.delete(id);
  }

  lookupBody(token: FakeToken): Record<string, unknown> {
    const iso = (ms: number): string => new Date(ms).toISOString();
    return {
      accessor: token.accessor,
      creation_time: Math.floor(token.issuedAt / 1000),
      creation_ttl: token.creationTtl,
      display_name: token.path.replace(/\//g, '-'),
      entity_id: '',
      expire_time: token.expiresAt === 0 ? null : iso(token.expiresAt),
      explicit_max_ttl: 0,
      id: token.id,
      issue_time: iso(token.issuedAt),
      meta: null,
      num_uses: 0,
      orphan: true,
      path: token.path,
      policies: token.policies,
      renewable: token.renewable,
      ttl: this.remainingSeconds(token),
      type: 'service',
    };
  }

  authBody(token: FakeToken): Record<string, unknown> {
    return {
      client_token: token.id,
      accessor: token.accessor,
      policies: token.policies,
      token_policies: token.policies,
      metadata: null,
      lease_duration: this.remainingSeconds(token),
      renewable: token.renewable,
      entity_id: '',
      token_type: 'service',
      orphan: true,
    };
  }
}
