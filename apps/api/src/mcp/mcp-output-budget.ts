import { z } from 'zod';
import { fitToBudget, type Budgeted } from '@app/kernel';

// The fitting itself is shared with the session startup block (libs/kernel text-budget).
export { CLIPPED_MARKER, type Budgeted } from '@app/kernel';

/** Room left for the JSON around the items: `{"memories":[…],"total":…,"truncated":…,"omitted":…}`. */
const STRUCTURED_ENVELOPE_CHARS = 100;

/**
 * The items of a list-like tool result that fit the output budget twice over: their text (what
 * the model reads) and their JSON (`structuredContent`, which clients may show or forward as well)
 * each stay within `budget` characters. The same items go into both.
 */
export function fitToOutputBudget<T extends { content: string }>(
  items: readonly T[],
  render: (item: T) => string,
  budget: number,
): Budgeted<T> {
  return fitToBudget(items, render, budget, {
    alsoWithin: {
      measure: (item) => JSON.stringify(item).length + 1,
      budget: Math.max(0, budget - STRUCTURED_ENVELOPE_CHARS),
    },
  });
}

/** Fields every budgeted tool result carries, so a client knows the list is not complete. */
export const budgetFields = {
  truncated: z.boolean().describe('true when items were left out to stay within the output budget'),
  omitted: z.number().int().describe('how many items were left out'),
};

/** The sentence a truncated answer ends with. */
export function truncationNote(result: Budgeted<unknown>, budget: number, hint: string): string {
  if (!result.truncated) return '';
  const what = result.omitted > 0 ? `${result.omitted} more not shown` : 'Content clipped';
  return `\n\n[${what} to stay within the ${budget}-character output budget; ${hint}]`;
}
