import { describe, expect, it } from 'vitest';
import {
  importMemoriesSchema,
  listMemoriesQuerySchema,
  storeMemorySchema,
  updateMemorySchema,
} from './memory.schemas';

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
    // Past a 32-bit integer Postgres refuses the page query itself (a 500 before this bound).
    expect(listMemoriesQuerySchema.safeParse({ offset: '1000000000' }).success).toBe(true);
    expect(listMemoriesQuerySchema.safeParse({ offset: '5786231992' }).success).toBe(false);
  });

  it('keeps absent update fields absent so "no fields" can be detected', () => {
    expect(updateMemorySchema.parse({ unrelated: true })).toEqual({});
  });

  it('keeps an exported item’s times, id and links as sent and strips the rest', () => {
    const item = {
      id: 7,
      content: 'x',
      tags: ['a'],
      is_sensitive: true,
      links: [{ id: 3, link_type: 'supersedes' }],
      shares: [],
      deleted_at: null,
      created_at: '2025-01-02T03:04:05.123456+00:00',
      updated_at: '2025-01-03T03:04:05.000001+00:00',
    };
    expect(importMemoriesSchema.parse([item])[0]).toEqual({
      content: 'x',
      category: 'facts',
      tags: ['a'],
      expanded_keywords: '',
      importance: 0.5,
      force_sensitive: false,
      created_at: '2025-01-02T03:04:05.123456+00:00',
      updated_at: '2025-01-03T03:04:05.000001+00:00',
      id: 7,
      links: [{ id: 3, link_type: 'supersedes' }],
    });
    // Only informative: a malformed id or links list is dropped, not refused.
    const lenient = importMemoriesSchema.parse([{ content: 'x', id: 'a', links: 'b' }])[0];
    expect([lenient.id, lenient.links]).toEqual([undefined, undefined]);
  });

  it('refuses import times in the future, unparseable, or an update before the creation', () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const issues = (item: object) =>
      importMemoriesSchema.safeParse([{ content: 'x', ...item }]).error?.issues.map((i) => i.path.join('.'));
    expect(issues({ created_at: future })).toEqual(['0.created_at']);
    expect(issues({ updated_at: 'yesterday' })).toEqual(['0.updated_at']);
    expect(issues({ created_at: '2025-02-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z' })).toEqual([
      '0.updated_at',
    ]);
  });
});
