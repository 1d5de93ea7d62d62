import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { TransactionRunner } from '@app/persistence';
import { assertAdmin, tenantScopeOf, type Actor } from '@app/tenancy';
import { JOB_INSPECTOR, QUEUE_JOB_STATES, TENANT_JOB_NAMES, type JobInspector } from '../job-inspector.port';
import { TenantStatsRepository, type TenantCounts } from './tenant-stats.repository';

export interface TenantStats extends TenantCounts {
  /** The tenant's jobs the queue holds, per state. */
  readonly queue: Readonly<Record<(typeof QUEUE_JOB_STATES)[number], number>>;
}

/**
 * `GET /api/admin/stats`: what the actor's tenant holds (memories, users, keys, sessions) and its
 * backlog (outbox rows not yet queued, queue jobs per state). Lives beside the jobs because the
 * backlog is read from the queue; the rest is row counts.
 */
@Injectable()
export class GetTenantStatsUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TenantStatsRepository) private readonly stats: TenantStatsRepository,
    @Inject(JOB_INSPECTOR) private readonly inspector: JobInspector,
  ) {}

  async execute(actor: Actor): Promise<TenantStats> {
    assertAdmin(actor);
    const { tenantId } = tenantScopeOf(actor);
    const [counts, jobs] = await Promise.all([
      this.tx.asSystem((tx) => this.stats.counts(tx, tenantId)),
      this.inspector.list(tenantId, { names: TENANT_JOB_NAMES, states: QUEUE_JOB_STATES }),
    ]);
    const queue = Object.fromEntries(
      QUEUE_JOB_STATES.map((state) => [state, jobs.filter((job) => job.state === state).length]),
    ) as TenantStats['queue'];
    return { ...counts, queue };
  }
}

export const tenantStatsResponse = z.object({
  memories: z.object({ live: z.number().int(), deleted: z.number().int() }),
  users: z.object({ total: z.number().int(), disabled: z.number().int(), admins: z.number().int() }),
  keys: z.object({ active: z.number().int(), revoked: z.number().int(), expired: z.number().int() }),
  sessions: z.object({ total: z.number().int(), active: z.number().int() }),
  queue: z
    .object({
      outbox_pending: z
        .number()
        .int()
        .describe('Jobs written with their change, not yet handed to the queue'),
      waiting: z.number().int(),
      active: z.number().int(),
      delayed: z.number().int(),
      completed: z.number().int(),
      failed: z.number().int(),
    })
    .describe('The tenant’s backlog (completed and failed: as long as the queue keeps them)'),
});

export function presentTenantStats(stats: TenantStats): z.infer<typeof tenantStatsResponse> {
  return {
    memories: stats.memories,
    users: stats.users,
    keys: stats.keys,
    sessions: stats.sessions,
    queue: { outbox_pending: stats.outboxPending, ...stats.queue },
  };
}
