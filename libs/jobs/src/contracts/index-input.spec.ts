import { describe, expect, it } from 'vitest';
import { indexInput, indexInputDigest, indexInputHash } from './index-input';

describe('memory.index input', () => {
  it('joins content, keywords and tags, ignoring tag order and empty parts', () => {
    const a = indexInput({
      content: ' Use pnpm ',
      expandedKeywords: 'package manager',
      tags: ['node', 'build'],
    });
    const b = indexInput({
      content: 'Use pnpm',
      expandedKeywords: 'package manager',
      tags: ['build', 'node'],
    });
    expect(a).toBe('Use pnpm\npackage manager\nbuild node');
    expect(b).toBe(a);
    expect(indexInput({ content: 'only content', expandedKeywords: '', tags: [] })).toBe('only content');
    expect(indexInputDigest(a).equals(indexInputDigest(b))).toBe(true);
    expect(indexInputDigest(a)).toHaveLength(32);
    // The job's idempotency key is the same digest the stored vectors keep.
    expect(
      indexInputHash({ content: 'Use pnpm', expandedKeywords: 'package manager', tags: ['node', 'build'] }),
    ).toBe(indexInputDigest(a).toString('hex'));
  });
});
