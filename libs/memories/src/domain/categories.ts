/**
 * The canonical categories, in the plural form claude-memory-mcp's REST contract uses. Every write
 * path and every filter folds a canonical category's singular (and any case) into it, so
 * `decision`, `Decisions` and `decisions` are one category; other categories are kept as given
 * (lowercased), custom ones included.
 */
export const CANONICAL_CATEGORIES = [
  'facts',
  'decisions',
  'preferences',
  'gotchas',
  'runbooks',
  'corrections',
  'notes',
] as const;

export type CanonicalCategory = (typeof CANONICAL_CATEGORIES)[number];

/** The singular of each canonical category, as agents and older clients write it. */
export const SINGULAR_CATEGORIES: Readonly<Record<string, CanonicalCategory>> = Object.fromEntries(
  CANONICAL_CATEGORIES.map((plural) => [plural.slice(0, -1), plural]),
);

/** A category as it is stored and compared: trimmed, lowercased, a canonical singular made plural. */
export function canonicalCategory(category: string): string {
  const name = category.trim().toLowerCase();
  return SINGULAR_CATEGORIES[name] ?? name;
}

/** Canonical categories first (in their order), then the others by name. */
export function byCanonicalOrder(a: string, b: string): number {
  const rank = (name: string) => {
    const i = (CANONICAL_CATEGORIES as readonly string[]).indexOf(name);
    return i === -1 ? CANONICAL_CATEGORIES.length : i;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
