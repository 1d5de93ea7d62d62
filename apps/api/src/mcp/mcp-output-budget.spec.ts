import { describe, expect, it } from 'vitest';
import { fitToBudget } from '@app/kernel';
import { fitToOutputBudget, truncationNote } from './mcp-output-budget';

const item = (id: number, content: string) => ({ id, content });
const render = (m: { id: number; content: string }) => `#${m.id} ${m.content}\n`;

// fitToBudget itself is tested in libs/kernel (text-budget.spec.ts).
describe('truncationNote', () => {
  it('says nothing when everything fit', () => {
    expect(truncationNote(fitToBudget([item(1, 'a')], render, 100), 100, 'hint')).toBe('');
  });

  it('says how many were left out, within which budget, and what to do', () => {
    const result = fitToBudget([item(1, 'x'.repeat(40)), item(2, 'y'.repeat(40)), item(3, 'z')], render, 60);
    expect(truncationNote(result, 60, 'lower limit')).toBe(
      '\n\n[2 more not shown to stay within the 60-character output budget; lower limit]',
    );
  });

  it('says the content was clipped when a single item was cut', () => {
    const alone = fitToBudget([item(1, 'x'.repeat(500))], render, 100);
    expect(truncationNote(alone, 100, 'hint')).toContain('Content clipped');
  });
});

describe('fitToOutputBudget', () => {
  it('keeps the structured result within the budget as well as the text', () => {
    // Short text per item, long JSON (a field the text leaves out): the JSON decides.
    const items = Array.from({ length: 20 }, (_, i) => ({
      id: i,
      content: `fact ${i}`,
      expanded_keywords: 'k'.repeat(120),
    }));
    const fitted = fitToOutputBudget(items, render, 1_000);
    expect(fitted.texts.join('').length).toBeLessThan(200);
    expect(fitted.items.length).toBeGreaterThan(0);
    expect(fitted).toMatchObject({ truncated: true, omitted: 20 - fitted.items.length });
    const structured = { memories: fitted.items, total: 20, truncated: true, omitted: fitted.omitted };
    expect(JSON.stringify(structured).length).toBeLessThanOrEqual(1_000);
  });
});
