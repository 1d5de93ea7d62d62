import type { TenantScope } from '../tx';
import { laterLsn, type Lsn } from './lsn';

/**
 * Where each user's last write committed, for a while after it: a user's next read, whichever API
 * process serves it and whether or not the client sends a token back, waits for a replica to have
 * replayed that position or goes to the primary. Kept only as long as a replica in rotation may
 * still be behind it (`ttlMs`).
 */
export interface WritePositions {
  /** Records a committed write of the user (keeps the later of two positions). */
  record(scope: TenantScope, lsn: Lsn, ttlMs: number): Promise<void>;
  /**
   * The user's last recorded write; null when none is recent. Throws when it cannot be known (its
   * store unreachable): the read then goes to the primary.
   */
  latest(scope: TenantScope): Promise<Lsn | null>;
  /** Lets go of its connections (shutdown). */
  close?(): Promise<void>;
}

/** Positions held in this process: enough for one API process; several need a shared store (Redis). */
export class LocalWritePositions implements WritePositions {
  private readonly positions = new Map<string, { lsn: Lsn; until: number }>();

  async record(scope: TenantScope, lsn: Lsn, ttlMs: number): Promise<void> {
    const key = userKey(scope);
    const held = this.positions.get(key);
    const now = Date.now();
    this.positions.set(key, {
      lsn: laterLsn(held && held.until > now ? held.lsn : null, lsn) as Lsn,
      until: now + ttlMs,
    });
    if (this.positions.size > 10_000) this.sweep(now);
  }

  async latest(scope: TenantScope): Promise<Lsn | null> {
    const held = this.positions.get(userKey(scope));
    return held && held.until > Date.now() ? held.lsn : null;
  }

  private sweep(now: number): void {
    for (const [key, held] of this.positions) if (held.until <= now) this.positions.delete(key);
  }
}

export function userKey(scope: TenantScope): string {
  return `${scope.tenantId}:${scope.userId}`;
}
