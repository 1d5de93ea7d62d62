/**
 * A position in the primary's write-ahead log (`pg_lsn`, written `16/B374D848`), as a bigint so
 * that positions compare and order; null where a server reports none (not a standby).
 */
export type Lsn = bigint;

const LSN = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** `16/B374D848` → bigint; null when `text` is not a position. */
export function parseLsn(text: string | null | undefined): Lsn | null {
  const match = LSN.exec(text ?? '');
  if (!match) return null;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** The position as Postgres writes it. */
export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** The later of two positions (null: none). */
export function laterLsn(a: Lsn | null, b: Lsn | null): Lsn | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}
