import { describe, expect, it } from 'vitest';
import { query } from './api';
import { daysFrom } from './charts';
import { match } from './router';

describe('console routes', () => {
  it('matches a pattern and decodes its parameters', () => {
    expect(match('/memories/:id', '/memories/42')).toEqual({ id: '42' });
    expect(match('/sessions/:id', '/sessions/a%2Fb')).toEqual({ id: 'a/b' });
    expect(match('/memories/:id', '/memories/42/edit')).toBeNull();
    expect(match('/memories/new', '/memories/42')).toBeNull();
  });
});

describe('query strings', () => {
  it('keeps only the values that are set, encoded', () => {
    expect(query({ tag: 'a b', project: '', limit: 50, team: true, owner: undefined, x: null })).toBe(
      '?tag=a+b&limit=50&team=true',
    );
    expect(query({ tag: '' })).toBe('');
  });
});

describe('chart days', () => {
  it('lists every UTC day from the first to today, so empty days are drawn as gaps', () => {
    const today = new Date().toISOString().slice(0, 10);
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const days = daysFrom(threeDaysAgo);
    expect(days).toHaveLength(4);
    expect(days[0]).toBe(threeDaysAgo);
    expect(days[3]).toBe(today);
    expect(daysFrom(today)).toEqual([today]);
  });
});
