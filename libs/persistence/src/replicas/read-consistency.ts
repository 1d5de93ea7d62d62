import { AsyncLocalStorage } from 'node:async_hooks';
import { formatLsn, laterLsn, parseLsn, type Lsn } from './lsn';

/**
 * What one request's reads must see, and what its writes committed: the transport opens it for
 * each request (`READ_CONSISTENCY.run`), the transaction runner reads and fills it.
 * - `required`: a position the client sent back from an earlier write's answer; a replica serves
 *   the request's reads only once it has replayed it.
 * - `written`: where the request's last write committed; the transport answers it as a token, and
 *   the request's own later reads must see it too.
 */
export interface ReadConsistency {
  required: Lsn | null;
  written: Lsn | null;
}

export const READ_CONSISTENCY = new AsyncLocalStorage<ReadConsistency>();

/** The request header (and response header) carrying a consistency token. */
export const CONSISTENCY_HEADER = 'x-memory-consistency';

/**
 * A token as clients see it: the commit position, prefixed so that it reads as ours and can change
 * form later (`lsn:16/B374D848`).
 */
export function consistencyToken(lsn: Lsn): string {
  return `lsn:${formatLsn(lsn)}`;
}

/** The position a token names; null when it is not a token of ours. */
export function parseConsistencyToken(token: string): Lsn | null {
  return token.startsWith('lsn:') ? parseLsn(token.slice(4)) : null;
}

/** The position the current request's reads must see: what it was sent and what it wrote. */
export function requiredPosition(): Lsn | null {
  const context = READ_CONSISTENCY.getStore();
  return context ? laterLsn(context.required, context.written) : null;
}

/**
 * The current request's reads must see `lsn` (the user's last write, learned while routing one of
 * them): copies derived in the process (recall's indexes) are brought up to date before they answer.
 */
export function requireForRequest(lsn: Lsn | null): void {
  const context = READ_CONSISTENCY.getStore();
  if (context && lsn !== null) context.required = laterLsn(context.required, lsn);
}

/** Records a write of the current request (no request: nothing to record). */
export function recordWritten(lsn: Lsn): void {
  const context = READ_CONSISTENCY.getStore();
  if (context) context.written = laterLsn(context.written, lsn);
}
