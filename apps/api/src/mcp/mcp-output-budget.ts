import { z } from 'zod';
import { type Budgeted } from '@app/kernel';

// The fitting itself is shared with the session startup block (libs/kernel text-budget).
export { CLIPPED_MARKER, fitToBudget, type Budgeted } from '@app/kernel';

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
