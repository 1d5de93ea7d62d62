import { describe, expect, it } from 'vitest';
import { ApiKeyCache } from './api-key-cache';

const principal = (keyId: string) => ({
  tenantId: 't',
  tenantSlug: 's',
  userId: 'u',
  username: 'alice',
  keyId,
  scopes: ['memories:read' as const],
});

describe('ApiKeyCache', () => {
  it('serves an entry for its ttl and then forgets it', () => {
    let now = 1_000;
    const cache = new ApiKeyCache({ ttlMs: 5_000, now: () => now });
    cache.set('h1', principal('k1'), null);
    now += 4_999;
    expect(cache.get('h1')?.keyId).toBe('k1');
    now += 1;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('never outlives the key expiry', () => {
    let now = 1_000;
    const cache = new ApiKeyCache({ ttlMs: 5_000, now: () => now });
    cache.set('h1', principal('k1'), new Date(2_000));
    now = 2_000;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('evicts by key id (revocation) and stays bounded', () => {
    const cache = new ApiKeyCache({ ttlMs: 5_000, maxEntries: 2 });
    cache.set('h1', principal('k1'), null);
    cache.set('h2', principal('k2'), null);
    cache.set('h3', principal('k3'), null);
    expect(cache.size).toBe(2);
    expect(cache.get('h1')).toBeUndefined();
    cache.evictKey('k2');
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h3')?.keyId).toBe('k3');
  });

  it('caches nothing when the ttl is 0', () => {
    const cache = new ApiKeyCache({ ttlMs: 0 });
    cache.set('h1', principal('k1'), null);
    expect(cache.get('h1')).toBeUndefined();
  });
});
