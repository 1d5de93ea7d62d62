import { describe, expect, it } from 'vitest';
import { formatLsn, laterLsn, parseLsn } from './lsn';
import { consistencyToken, parseConsistencyToken } from './read-consistency';

describe('positions and consistency tokens', () => {
  it('reads and writes positions as Postgres does, ordered as the log is', () => {
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(formatLsn(parseLsn('16/B374D848') as bigint)).toBe('16/B374D848');
    expect(parseLsn('0/0')).toBe(0n);
    expect((parseLsn('1/0') as bigint) > (parseLsn('0/FFFFFFFF') as bigint)).toBe(true);
    expect(laterLsn(5n, 7n)).toBe(7n);
    expect(laterLsn(null, 7n)).toBe(7n);
    expect(laterLsn(5n, null)).toBe(5n);
  });

  it('accepts only tokens it issued', () => {
    const token = consistencyToken(parseLsn('2A/1F') as bigint);
    expect(token).toBe('lsn:2A/1F');
    expect(parseConsistencyToken(token)).toBe(parseLsn('2A/1F'));
    for (const bad of [
      '2A/1F',
      'lsn:',
      'lsn:2A',
      'lsn:2A/1F/3',
      'lsn:123456789/0',
      'lsn:zz/1',
      "lsn:0/0'; --",
    ])
      expect(parseConsistencyToken(bad), bad).toBeNull();
  });
});
