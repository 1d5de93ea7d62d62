import { describe, expect, it } from 'vitest';
import { CLIPPED_MARKER, clipLine, fitToBudget } from './text-budget';

const item = (id: number, content: string) => ({ id, content });
const render = (m: { id: number; content: string }) => `#${m.id} ${m.content}\n`;

describe('fitToBudget', () => {
  it('keeps everything that fits and reports nothing truncated', () => {
    expect(fitToBudget([item(1, 'a'), item(2, 'b')], render, 100)).toEqual({
      items: [item(1, 'a'), item(2, 'b')],
      texts: ['#1 a\n', '#2 b\n'],
      omitted: 0,
      truncated: false,
    });
  });

  it('stops at the first item that does not fit, keeping the ranking order', () => {
    const result = fitToBudget([item(1, 'x'.repeat(40)), item(2, 'y'.repeat(40)), item(3, 'z')], render, 60);
    expect(result.items.map((m) => m.id)).toEqual([1]);
    expect(result).toMatchObject({ omitted: 2, truncated: true });
  });

  it('clips a first item that alone exceeds the budget instead of answering nothing', () => {
    const result = fitToBudget([item(1, 'x'.repeat(500)), item(2, 'y')], render, 100);
    expect(result.items).toHaveLength(1);
    expect(result.items[0].content.endsWith(CLIPPED_MARKER)).toBe(true);
    expect(result.texts[0].length).toBeLessThanOrEqual(100);
    expect(result).toMatchObject({ omitted: 1, truncated: true });
  });

  it('leaves an oversized first item out when asked not to clip', () => {
    const result = fitToBudget([item(1, 'x'.repeat(500)), item(2, 'y')], render, 100, { clipFirst: false });
    expect(result).toEqual({ items: [], texts: [], omitted: 2, truncated: true });
  });

  it('never splits a surrogate pair when clipping', () => {
    const emoji = '😀'.repeat(100);
    const [kept] = fitToBudget([item(1, emoji)], render, 51).items;
    expect(kept.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe('clipLine', () => {
  it('folds whitespace into one line and cuts long text with an ellipsis', () => {
    expect(clipLine('  a\n\nb \t c ', 20)).toBe('a b c');
    expect(clipLine('abcdefghij', 5)).toBe('abcd…');
    expect(clipLine('abcdefghij', 10)).toBe('abcdefghij');
    expect(clipLine('😀'.repeat(10), 4)).toBe('😀…');
  });
});

describe('fitToBudget with a second measure (the JSON of a structured result)', () => {
  const items = [1, 2, 3].map((id) => ({ id, content: `memory ${id} ${'w'.repeat(30)}`, owner: 'alice' }));
  const render = (m: { id: number; content: string }) => `#${m.id} ${m.content}\n`;
  const json = (m: object) => JSON.stringify(m).length + 1;

  it('keeps items while both their text and their JSON fit', () => {
    const textOnly = fitToBudget(items, render, 200);
    expect(textOnly.items).toHaveLength(3);
    const both = fitToBudget(items, render, 200, { alsoWithin: { measure: json, budget: 160 } });
    expect(both.items.map((m) => m.id)).toEqual([1, 2]);
    expect(both.items.reduce((sum, m) => sum + json(m), 0)).toBeLessThanOrEqual(160);
    expect(both).toMatchObject({ omitted: 1, truncated: true });
  });

  it('clips a first item whose JSON alone is over, escapes included', () => {
    const quoted = { id: 1, content: '"\\'.repeat(200), owner: 'alice' };
    const fitted = fitToBudget([quoted], render, 1_000, { alsoWithin: { measure: json, budget: 120 } });
    expect(fitted.truncated).toBe(true);
    expect(json(fitted.items[0])).toBeLessThanOrEqual(120);
    expect(fitted.items[0].content.endsWith(CLIPPED_MARKER)).toBe(true);
    expect(render(fitted.items[0]).length).toBeLessThanOrEqual(1_000);
  });
});
