import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from './token-estimate';

describe('estimateTokens', () => {
  it('counts ASCII as 4 characters per token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a')).toBe(1);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('We deploy with helm 3')).toBe(6);
  });

  it('counts every other character as a token, and a character outside the BMP as two', () => {
    expect(estimateTokens('·')).toBe(1);
    expect(estimateTokens('⟦x⟧')).toBe(3);
    expect(estimateTokens('日本語')).toBe(3);
    expect(estimateTokens('🚀')).toBe(2);
    expect(estimateTokens('ok 🚀 · done')).toBe(Math.ceil(9 / 4) + 3);
  });

  it('never estimates a concatenation above the sum of its parts', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 8 }), (parts) => {
        const sum = parts.reduce((n, part) => n + estimateTokens(part), 0);
        expect(estimateTokens(parts.join(''))).toBeLessThanOrEqual(sum);
      }),
    );
  });
});
