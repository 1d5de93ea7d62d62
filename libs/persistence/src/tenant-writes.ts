/**
 * Which tenants this process has written to: a version per tenant that changes with each committed
 * transaction that wrote what recall indexes (`TransactionRunner` tells it; a system transaction
 * counts for every tenant). Derived copies kept in the process (recall's in-memory indexes) compare versions to know
 * whether this process committed a write since they were last brought up to date. Writes of other
 * processes are not seen here.
 */
export class TenantWrites {
  private last = 0;
  private system = 0;
  private readonly tenants = new Map<string, number>();

  /** A transaction that wrote committed: for `tenantId`, or (null) as the system, for every tenant. */
  committed(tenantId: string | null): void {
    this.last += 1;
    if (tenantId === null) this.system = this.last;
    else this.tenants.set(tenantId, this.last);
  }

  /** Changes whenever a write of the tenant, or a system write, commits in this process. */
  versionOf(tenantId: string): number {
    return Math.max(this.system, this.tenants.get(tenantId) ?? 0);
  }
}

/** This process's record (one per process, as the transactions it counts). */
export const TENANT_WRITES = new TenantWrites();

/**
 * Whether a statement may change what recall's in-memory indexes hold: it inserts into, updates or
 * deletes from memories, their shares, tag rules or vectors, or the users and tenants they cascade
 * from. Other writes (the outbox relay, key bookkeeping, audit rows) leave those indexes as they
 * are, and a process's indexes must not go stale on them. Writes made inside SQL functions are not
 * seen here: a derived copy bounds its staleness by time as well.
 */
export function mayWrite(sql: string): boolean {
  return WRITES.test(sql);
}

const WRITES =
  /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(?:ONLY\s+)?(?:public\.)?(?:memories|memory_shares|tag_shares|memory_embeddings|users|tenants)\b/i;
