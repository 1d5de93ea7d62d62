import { describe, expect, it } from 'vitest';
import { laterPageOffset } from './team-endpoints';

describe('laterPageOffset', () => {
  it('is the middle of the visible set on a page boundary', () => {
    expect(laterPageOffset(1_000_000)).toBe(500_000);
    expect(laterPageOffset(20_020)).toBe(10_000);
    expect(laterPageOffset(20_020, 30)).toBe(9_990);
  });

  it('is the first page when the set is smaller than two pages', () => {
    expect(laterPageOffset(70)).toBe(0);
    expect(laterPageOffset(0)).toBe(0);
  });
});
