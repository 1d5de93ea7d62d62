import { describe, expect, it } from 'vitest';
import { assertContentSize, contentHash, normaliseContent } from './content-rules';
import { MemoryError } from './memory.errors';

describe('content rules', () => {
  it('treats whitespace, zero-width and compatibility variants of the same text as duplicates', () => {
    expect(contentHash('Use  pnpm\u200B here ')).toEqual(contentHash('Use pnpm here'));
    expect(contentHash('ﬁle')).toEqual(contentHash('file'));
    expect(contentHash('Use pnpm')).not.toEqual(contentHash('use pnpm'));
  });

  it('rejects content over the byte limit, counting UTF-8 bytes rather than characters', () => {
    expect(() => assertContentSize('é'.repeat(10), 19)).toThrow(MemoryError);
    expect(() => assertContentSize('é'.repeat(10), 20)).not.toThrow();
  });

  it('rejects content that is only whitespace', () => {
    expect(() => assertContentSize(' \n\t\u200B', 100)).toThrow(/empty/);
    expect(normaliseContent('  a  b ')).toBe('a b');
  });
});
