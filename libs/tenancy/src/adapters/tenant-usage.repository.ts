import { Injectable } from '@nestjs/common';
import { type TenantScope, type Tx } from '@app/persistence';
import type { TenantUsage } from '../domain/tenant-quotas';

/**
 * What a tenant uses of its quotas, through the functions of migration 1763700000025 (they answer
 * for the caller's own tenant only): live memories and their bytes from the usage counters, and the
 * sessions started since the UTC day began.
 */
@Injectable()
export class TenantUsageRepository {
  async read(scope: TenantScope, tx: Tx): Promise<TenantUsage> {
    const { rows } = await tx.query<{ memories: string; bytes: string; sessions_today: string }>(
      `SELECT t.memories, t.bytes, sessions_started_today($1) AS sessions_today FROM memory_usage_totals($1) t`,
      [scope.tenantId],
    );
    return {
      memories: Number(rows[0].memories),
      memoryBytes: Number(rows[0].bytes),
      sessionsToday: Number(rows[0].sessions_today),
    };
  }
}
