/** One `audit_log` row as admins read it. */
export interface AuditRecord {
  /** bigint identity, as a decimal string. */
  readonly id: string;
  /** Wire timestamp (microseconds, explicit offset). */
  readonly createdAt: string;
  /** Null when an operator acted without a key (CLI, bootstrap, worker); `details.via` names it. */
  readonly actorId: string | null;
  readonly actorUsername: string | null;
  readonly keyId: string | null;
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string | null;
  readonly requestId: string | null;
  readonly details: Record<string, unknown>;
}
