import type { Principal } from '../domain/principal';

export interface ApiKeyCacheOptions {
  /** How long a verified key is trusted without asking the database again. 0 disables the cache. */
  readonly ttlMs?: number;
  readonly maxEntries?: number;
  readonly now?: () => number;
}

type CachedPrincipal = Omit<Principal, 'requestId'>;

interface Entry {
  readonly principal: CachedPrincipal;
  readonly validUntil: number;
}

/** Default trust window: revocation by another replica takes effect within this time. */
export const API_KEY_CACHE_TTL_MS = 5_000;

/**
 * Short in-process cache of successful key verifications, keyed by the key's sha256 (never the
 * key itself). It saves a database round trip on bursts of requests with the same key.
 *
 * Consistency: a revocation made through this process evicts the entry at once; a revocation
 * made by another replica or the CLI takes effect here within `ttlMs` (5 s by default). An entry
 * never outlives the key's own expiry. Failed verifications are not cached, so a key created a
 * moment ago works immediately.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: ApiKeyCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? API_KEY_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  get(hashHex: string): CachedPrincipal | undefined {
    const entry = this.entries.get(hashHex);
    if (!entry) return undefined;
    if (entry.validUntil <= this.now()) {
      this.entries.delete(hashHex);
      return undefined;
    }
    return entry.principal;
  }

  set(hashHex: string, principal: CachedPrincipal, keyExpiresAt: Date | null): void {
    if (this.ttlMs <= 0) return;
    const until = this.now() + this.ttlMs;
    const validUntil = keyExpiresAt === null ? until : Math.min(until, keyExpiresAt.getTime());
    this.entries.delete(hashHex);
    // Map keeps insertion order, so the first key is the oldest entry.
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(hashHex, { principal, validUntil });
  }

  /** Forgets a key by id (revocation does not know the hash). Rare, so a scan is fine. */
  evictKey(keyId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.principal.keyId === keyId) this.entries.delete(hash);
    }
  }

  /** Forgets every key of a user (disabled). */
  evictUser(userId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.principal.userId === userId) this.entries.delete(hash);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
