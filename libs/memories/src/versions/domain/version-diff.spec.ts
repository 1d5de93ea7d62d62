import { describe, expect, it } from 'vitest';
import type { MemoryState } from '../../domain/memory-version';
import { diffStates } from './version-diff';

const state = (overrides: Partial<MemoryState> = {}): MemoryState => ({
  content: 'one\ntwo\nthree',
  category: 'facts',
  tags: ['a'],
  importance: 0.5,
  project: null,
  visibility: 'team',
  isSensitive: false,
  ...overrides,
});
const labels = { from: 'version 1', to: 'current' };

describe('diffStates', () => {
  it('diffs the content line by line and names the other fields that differ', () => {
    const diff = diffStates(state(), state({ content: 'one\n2\nthree\nfour', tags: ['a', 'b'] }), labels);
    expect(diff.changedFields).toEqual(['content', 'tags']);
    expect(diff.lines).toEqual([
      { op: 'equal', text: 'one' },
      { op: 'delete', text: 'two' },
      { op: 'insert', text: '2' },
      { op: 'equal', text: 'three' },
      { op: 'insert', text: 'four' },
    ]);
    expect(diff.unified.startsWith('--- version 1\n+++ current\n@@ ')).toBe(true);
    expect(diff.unified).toContain('+++ current');
    expect(diff.unified).toContain('-two\n+2\n three\n+four');
    expect(diff.fields).toEqual([{ field: 'tags', from: ['a'], to: ['a', 'b'] }]);
  });

  it('answers no change for equal states', () => {
    const diff = diffStates(state(), state(), labels);
    expect(diff).toMatchObject({ changedFields: [], unified: '', fields: [] });
    expect(diff.lines.every((l) => l.op === 'equal')).toBe(true);
  });

  it('lists a change of visibility or importance without a content diff', () => {
    const diff = diffStates(state(), state({ visibility: 'private', importance: 0.9 }), labels);
    expect(diff.changedFields).toEqual(['importance', 'visibility']);
    expect(diff.unified).toBe('');
  });
});
