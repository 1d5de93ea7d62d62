import { z } from 'zod';
import type { TenantUsageReport } from '../application/get-tenant-usage.use-case';

const quota = (what: string) =>
  z.object({
    used: z.number().int().describe(what),
    limit: z.number().int().nullable().describe('the quota; null: unlimited'),
  });

/** `GET /api/usage`: the caller's tenant against each of its quotas. */
export const tenantUsageResponseSchema = z.object({
  tenant: z.string().describe("the tenant's slug"),
  memories: quota('live (not deleted) memories'),
  memory_bytes: quota("bytes (UTF-8) of the live memories' content"),
  sessions_today: quota('sessions started since 00:00 UTC').extend({
    resets_at: z.string().describe('when the count starts again (the next 00:00 UTC)'),
  }),
});
export type TenantUsageResponse = z.infer<typeof tenantUsageResponseSchema>;

const limitOf = (value: number) => (value === 0 ? null : value);

export function toTenantUsageResponse(report: TenantUsageReport): TenantUsageResponse {
  return {
    tenant: report.tenant,
    memories: { used: report.usage.memories, limit: limitOf(report.quotas.maxMemories) },
    memory_bytes: { used: report.usage.memoryBytes, limit: limitOf(report.quotas.maxMemoryBytes) },
    sessions_today: {
      used: report.usage.sessionsToday,
      limit: limitOf(report.quotas.maxSessionsPerDay),
      resets_at: report.sessionsResetAt.toISOString(),
    },
  };
}
