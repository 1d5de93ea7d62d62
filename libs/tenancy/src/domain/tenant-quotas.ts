import { DomainError } from '@app/kernel';

/** A tenant's ceilings; 0 = unlimited. */
export interface TenantQuotas {
  /** Live (not deleted) memories. */
  readonly maxMemories: number;
  /** Bytes (UTF-8) of live memories' content. */
  readonly maxMemoryBytes: number;
  /** Sessions started per UTC day. */
  readonly maxSessionsPerDay: number;
}

/** A tenant's own ceilings (the `tenants` columns); null takes the configured default. */
export type TenantQuotaOverrides = { readonly [K in keyof TenantQuotas]: number | null };

/** The configured defaults (QUOTA_MAX_*), for TenancyModule. */
export const TENANT_QUOTA_DEFAULTS = Symbol('TENANT_QUOTA_DEFAULTS');

export const UNLIMITED_QUOTAS: TenantQuotas = { maxMemories: 0, maxMemoryBytes: 0, maxSessionsPerDay: 0 };

export function effectiveQuotas(defaults: TenantQuotas, overrides: TenantQuotaOverrides): TenantQuotas {
  return {
    maxMemories: overrides.maxMemories ?? defaults.maxMemories,
    maxMemoryBytes: overrides.maxMemoryBytes ?? defaults.maxMemoryBytes,
    maxSessionsPerDay: overrides.maxSessionsPerDay ?? defaults.maxSessionsPerDay,
  };
}

/** What a tenant uses of its quotas right now. */
export interface TenantUsage {
  readonly memories: number;
  readonly memoryBytes: number;
  readonly sessionsToday: number;
}

/** The start of the next UTC day: when the sessions-per-day count starts again from zero. */
export function nextUtcDay(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

export enum QuotaErrorCode {
  /** A count quota (memories, sessions per day): 429. */
  QuotaExceeded = 'quota_exceeded',
  /** The bytes quota: 413. */
  StorageQuotaExceeded = 'storage_quota_exceeded',
}

const ADVICE = 'Nothing was stored. Delete what is no longer needed, or ask the operator to raise the quota.';

const count = (n: number) => n.toLocaleString('en-US');

/** A write refused because it would take the tenant past one of its quotas; nothing was stored. */
export class QuotaError extends DomainError<QuotaErrorCode> {
  private constructor(code: QuotaErrorCode, message: string, options: { retryAfterSeconds?: number } = {}) {
    super(
      code === QuotaErrorCode.StorageQuotaExceeded ? 'too_large' : 'too_many_requests',
      code,
      message,
      options,
    );
    this.name = 'QuotaError';
  }

  static memories(used: number, limit: number): QuotaError {
    return new QuotaError(
      QuotaErrorCode.QuotaExceeded,
      `Memory quota reached: the team stores ${count(used)} of ${count(limit)} memories. ${ADVICE}`,
    );
  }

  static memoryBytes(used: number, adding: number, limit: number): QuotaError {
    return new QuotaError(
      QuotaErrorCode.StorageQuotaExceeded,
      `Storage quota exceeded: the team's memories hold ${count(used)} of ${count(limit)} bytes and this write adds ${count(adding)}. ${ADVICE}`,
    );
  }

  static sessionsPerDay(used: number, limit: number, now: Date = new Date()): QuotaError {
    const resetsAt = nextUtcDay(now);
    return new QuotaError(
      QuotaErrorCode.QuotaExceeded,
      `Session quota reached: the team started ${count(used)} of ${count(limit)} sessions today (UTC); the count starts again at ${resetsAt.toISOString()}.`,
      { retryAfterSeconds: Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000)) },
    );
  }
}
