import { z } from 'zod';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

/** Largest page an admin list answers; the default when no `limit` is given. */
export const ADMIN_PAGE_MAX = 500;
export const ADMIN_PAGE_DEFAULT = 100;

/** `?cursor=&limit=` of the admin lists (REST query strings and CLI options alike). */
export const pageQuery = z.object({
  cursor: z
    .string('must be a string')
    .max(512)
    .optional()
    .describe('`next_cursor` of the previous page; absent for the first page'),
  limit: z.coerce
    .number('must be a number')
    .int('must be an integer')
    .min(1)
    .max(ADMIN_PAGE_MAX)
    .default(ADMIN_PAGE_DEFAULT),
});
export type PageQuery = z.output<typeof pageQuery>;

/** One page of a keyset-paged list; `nextCursor` is null on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

/**
 * Opaque cursors: the sort key of the last row on a page, as base64url JSON. They need no
 * signature: a cursor only says where to resume inside lists the caller may read anyway (every
 * list is filtered by the caller's tenant), so a forged one yields nothing it could not page to.
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function decodeCursor<S extends z.ZodType>(schema: S, raw: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new TenancyError(TenancyErrorCode.InvalidInput, 'cursor: is not a cursor of this list');
  }
  return parsed.data;
}

/** Splits `limit + 1` fetched rows into the page and the cursor of its last row. */
export function toPage<R, T>(
  rows: readonly R[],
  limit: number,
  map: (row: R) => T,
  keyOf: (row: R) => readonly (string | number)[],
): Page<T> {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return {
    items: shown.map(map),
    nextCursor: more ? encodeCursor(keyOf(shown[shown.length - 1])) : null,
  };
}

/** A timestamp in a cursor: the wire format (`isoTimestamp`), exact to the microsecond. */
export const cursorTimestampSchema = z.iso.datetime({ offset: true, precision: 6 });
