/**
 * Fitting text answers into a character budget (≈ 4 characters per token): the MCP tools' output
 * budget and the session startup block share these, so a list is cut the same way everywhere.
 */

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

export interface FitOptions<T = unknown> {
  /**
   * A first item that alone exceeds the budget is kept with its content clipped (default), so an
   * answer is never empty when there are matches; false leaves it out like any other.
   */
  readonly clipFirst?: boolean;
  /**
   * A second size every kept item must also fit, e.g. its JSON in a structured result: items are
   * kept while both their text and this measure stay within their budgets.
   */
  readonly alsoWithin?: { readonly measure: (item: T) => number; readonly budget: number };
}

/** The first `length` UTF-16 units of `text`, one fewer when that would split a surrogate pair. */
export function safeSlice(text: string, length: number): string {
  let keep = Math.max(0, Math.min(length, text.length));
  if (keep > 0 && keep < text.length && HIGH_SURROGATE.test(text.charAt(keep - 1))) keep -= 1;
  return text.slice(0, keep);
}

/**
 * One line of at most `max` characters: runs of whitespace (newlines included) become one space;
 * a longer text is cut and ends with `…`.
 */
export function clipLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  return `${safeSlice(line, Math.max(0, max - 1)).trimEnd()}…`;
}

/**
 * Keeps items, in order, while their rendered text fits in `budget` characters. Stops at the first
 * item that does not fit (so a ranking is never reordered); see `clipFirst` for a first item that
 * alone exceeds the budget.
 */
export function fitToBudget<T extends { content: string }>(
  items: readonly T[],
  render: (item: T) => string,
  budget: number,
  options: FitOptions<T> = {},
): Budgeted<T> {
  const second = options.alsoWithin;
  const kept: T[] = [];
  const texts: string[] = [];
  let used = 0;
  let usedSecond = 0;
  let clipped = false;
  for (const item of items) {
    const text = render(item);
    const size = second ? second.measure(item) : 0;
    if (used + text.length <= budget && (!second || usedSecond + size <= second.budget)) {
      kept.push(item);
      texts.push(text);
      used += text.length;
      usedSecond += size;
      continue;
    }
    if (kept.length === 0 && options.clipFirst !== false) {
      const shortened = clipToFit(item, render, budget, second);
      kept.push(shortened);
      texts.push(render(shortened));
      clipped = true;
    }
    break;
  }
  const omitted = items.length - kept.length;
  return { items: kept, texts, omitted, truncated: omitted > 0 || clipped };
}

/**
 * The item with its content cut (and marked) so that its text, and the second measure, fit. Cutting
 * n characters shortens the text by n and a JSON rendering by at least n, so the second pass
 * normally fits; a later one covers a surrogate pair kept whole. At worst the content is empty.
 */
function clipToFit<T extends { content: string }>(
  item: T,
  render: (item: T) => string,
  budget: number,
  second: FitOptions<T>['alsoWithin'],
): T {
  let keep = item.content.length;
  let candidate = item;
  for (let pass = 0; pass < 8; pass++) {
    candidate = { ...item, content: `${safeSlice(item.content, keep)}${CLIPPED_MARKER}` };
    const over = Math.max(
      render(candidate).length - budget,
      second ? second.measure(candidate) - second.budget : 0,
    );
    if (over <= 0 || keep === 0) break;
    keep = Math.max(0, keep - over);
  }
  return candidate;
}
