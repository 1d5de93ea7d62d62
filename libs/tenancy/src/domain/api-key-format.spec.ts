import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_PATTERN,
  checksumOf,
  classifyApiKey,
  displayPrefixOf,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from './api-key-format';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API key format', () => {
  it('generates msk_<32 base62>_<6 base62> keys whose checksum verifies', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^msk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
      expect(classifyApiKey(key)).toBe('managed');
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('computes the checksum as CRC32 of the body in base62, zero-padded to 6 characters', () => {
    expect(checksumOf('')).toBe('000000'); // crc32("") = 0
    const value = 0xcbf43926; // the standard CRC32 check value, crc32("123456789")
    let n = value;
    let expected = '';
    while (n > 0) {
      expected = BASE62[n % 62] + expected;
      n = Math.floor(n / 62);
    }
    expect(checksumOf('123456789')).toBe(expected.padStart(6, '0'));
  });

  it('rejects any single-character typo in a generated key without a lookup', () => {
    fc.assert(
      fc.property(fc.nat(31), fc.nat(61), (position, replacementIndex) => {
        const key = generateApiKey();
        const index = 4 + position; // inside the body
        const replacement = BASE62[replacementIndex];
        fc.pre(key[index] !== replacement);
        const typo = key.slice(0, index) + replacement + key.slice(index + 1);
        return classifyApiKey(typo) === 'invalid';
      }),
      { numRuns: 500 },
    );
  });

  it('rejects truncated, extended or mangled msk_ keys, and accepts other strings only as opaque', () => {
    const key = generateApiKey();
    expect(classifyApiKey(key.slice(0, -1))).toBe('invalid');
    expect(classifyApiKey(`${key}x`)).toBe('invalid');
    expect(classifyApiKey(key.replace(/_([^_]+)$/, '_000000'))).toBe('invalid');
    expect(classifyApiKey('msk_test')).toBe('invalid');
    expect(classifyApiKey('')).toBe('invalid');
    expect(classifyApiKey('x'.repeat(513))).toBe('invalid');
    expect(classifyApiKey('alice-key-1')).toBe('opaque');
  });

  it('hashes to 32 bytes of sha256 and shows only a non-secret prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(hashApiKey(key).equals(hashApiKey(key))).toBe(true);
    expect(displayPrefixOf(key)).toBe(key.slice(0, 12));
    const opaque = displayPrefixOf('alice-key-1');
    expect(opaque).toMatch(/^sha256:[0-9a-f]{8}$/);
    expect(opaque).not.toContain('alice');
  });

  it('finds generated keys in free text for secret detection', () => {
    const key = generateApiKey();
    const found = `my key is ${key}, keep it safe`.match(API_KEY_PATTERN);
    expect(found).toEqual([key]);
  });
});
