import { describe, expect, it } from 'vitest';
import { CLIPPED_MARKER, fitToBudget, truncationNote } from './mcp-output-budget';

const item = (id: number, content: string) => ({ id, content });
const render = (m: { id: number; content: string }) => `#${m.id} ${m.content}\n`;

describe('fitToBudget', () => {
  it('keeps everything that fits and reports nothing truncated', () => {
    const result = fitToBudget([item(1, 'a'), item(2, 'b')], render, 100);
    expect(result).toEqual({
      items: [item(1, 'a'), item(2, 'b')],
      texts: ['#1 a\n', '#2 b\n'],
      omitted: 0,
      truncated: false,
    });
    expect(truncationNote(result, 100, 'hint')).toBe('');
  });

  it('stops at the first item that does not fit, keeping the ranking order', () => {
    const result = fitToBudget([item(1, 'x'.repeat(40)), item(2, 'y'.repeat(40)), item(3, 'z')], render, 60);
    expect(result.items.map((m) => m.id)).toEqual([1]);
    expect(result).toMatchObject({ omitted: 2, truncated: true });
    expect(truncationNote(result, 60, 'lower limit')).toBe(
      '\n\n[2 more not shown to stay within the 60-character output budget; lower limit]',
    );
  });

  it('clips a first item that alone exceeds the budget instead of answering nothing', () => {
    const result = fitToBudget([item(1, 'x'.repeat(500)), item(2, 'y')], render, 100);
    expect(result.items).toHaveLength(1);
    expect(result.items[0].content.endsWith(CLIPPED_MARKER)).toBe(true);
    expect(result.texts[0].length).toBeLessThanOrEqual(100);
    expect(result).toMatchObject({ omitted: 1, truncated: true });
    const alone = fitToBudget([item(1, 'x'.repeat(500))], render, 100);
    expect(truncationNote(alone, 100, 'hint')).toContain('Content clipped');
  });

  it('never splits a surrogate pair when clipping', () => {
    const emoji = '😀'.repeat(100);
    const [kept] = fitToBudget([item(1, emoji)], render, 51).items;
    expect(kept.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
