import { describe, expect, it } from 'vitest';
import { listMemoriesQuerySchema, storeMemorySchema, updateMemorySchema } from './memory.schemas';

describe('memory contracts', () => {
  it('fills seed defaults and ignores unknown fields', () => {
    const parsed = storeMemorySchema.parse({ content: 'x', user_id: 'mallory', extra: 1 });
    expect(parsed).toEqual({
      content: 'x',
      category: 'facts',
      tags: [],
      expanded_keywords: '',
      importance: 0.5,
      force_sensitive: false,
    });
  });

  it('accepts tags as a comma-separated string or an array and de-duplicates them', () => {
    expect(storeMemorySchema.parse({ content: 'x', tags: ' a, b,,a ' }).tags).toEqual(['a', 'b']);
    expect(storeMemorySchema.parse({ content: 'x', tags: ['a', ' b '] }).tags).toEqual(['a', 'b']);
    expect(storeMemorySchema.safeParse({ content: 'x', tags: ['a,b'] }).success).toBe(false);
  });

  it('rejects importance outside 0..1 and categories that are not slugs', () => {
    expect(storeMemorySchema.safeParse({ content: 'x', importance: 1.5 }).success).toBe(false);
    expect(storeMemorySchema.safeParse({ content: 'x', importance: '0.25' }).data?.importance).toBe(0.25);
    expect(storeMemorySchema.safeParse({ content: 'x', category: 'a b' }).success).toBe(false);
    expect(storeMemorySchema.parse({ content: 'x', category: 'Decisions' }).category).toBe('decisions');
  });

  it('parses list paging strictly', () => {
    expect(listMemoriesQuerySchema.parse({ limit: '10000', offset: '5' })).toEqual({
      limit: 10000,
      offset: 5,
    });
    expect(listMemoriesQuerySchema.safeParse({ limit: '-1' }).success).toBe(false);
    expect(listMemoriesQuerySchema.safeParse({ limit: 'ten' }).success).toBe(false);
  });

  it('keeps absent update fields absent so "no fields" can be detected', () => {
    expect(updateMemorySchema.parse({ unrelated: true })).toEqual({});
  });
});
