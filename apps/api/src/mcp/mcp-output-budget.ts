import { z } from 'zod';

export const CLIPPED_MARKER = ' …[clipped]';
const HIGH_SURROGATE = /^[\uD800-\uDBFF]$/;

export interface Budgeted<T> {
  /** The items that fit, in their original order (the first one clipped if it alone was too long). */
  readonly items: T[];
  /** Their rendered text, one entry per kept item. */
  readonly texts: string[];
  /** How many items were left out. */
  readonly omitted: number;
  /** Items were left out or clipped. */
  readonly truncated: boolean;
}

/** Fields every budgeted tool result carries, so a client knows the list is not complete. */
export const budgetFields = {
  truncated: z.boolean().describe('true when items were left out to stay within the output budget'),
  omitted: z.number().int().describe('how many items were left out'),
};

/**
 * Keeps items, in order, while their rendered text fits in `budget` characters. Stops at the first
 * item that does not fit (so a ranking is never reordered); a first item that alone exceeds the
 * budget is kept with its content clipped, so the answer is never empty when there are matches.
 */
export function fitToBudget<T extends { content: string }>(
  items: readonly T[],
  render: (item: T) => string,
  budget: number,
): Budgeted<T> {
  const kept: T[] = [];
  const texts: string[] = [];
  let used = 0;
  let clipped = false;
  for (const item of items) {
    const text = render(item);
    if (used + text.length <= budget) {
      kept.push(item);
      texts.push(text);
      used += text.length;
      continue;
    }
    if (kept.length === 0) {
      let keep = Math.max(0, item.content.length - (text.length - budget) - CLIPPED_MARKER.length);
      if (HIGH_SURROGATE.test(item.content.charAt(keep - 1))) keep -= 1; // never split a character
      const shortened = { ...item, content: `${item.content.slice(0, keep)}${CLIPPED_MARKER}` };
      kept.push(shortened);
      texts.push(render(shortened));
      clipped = true;
    }
    break;
  }
  const omitted = items.length - kept.length;
  return { items: kept, texts, omitted, truncated: omitted > 0 || clipped };
}

/** The sentence a truncated answer ends with. */
export function truncationNote(result: Budgeted<unknown>, budget: number, hint: string): string {
  if (!result.truncated) return '';
  const what = result.omitted > 0 ? `${result.omitted} more not shown` : 'Content clipped';
  return `\n\n[${what} to stay within the ${budget}-character output budget; ${hint}]`;
}
