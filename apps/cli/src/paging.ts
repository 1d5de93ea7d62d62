import type { Page } from '@app/tenancy';

/** Follows a keyset-paged list to its end (CLI listings print everything). */
export async function allPages<T>(fetch: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetch(cursor);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}
