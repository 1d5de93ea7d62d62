import { Injectable } from '@nestjs/common';
import { type Tx } from '@app/persistence';

export interface TenantCounts {
  readonly memories: { readonly live: number; readonly deleted: number };
  readonly users: { readonly total: number; readonly disabled: number; readonly admins: number };
  readonly keys: { readonly active: number; readonly revoked: number; readonly expired: number };
  readonly sessions: { readonly total: number; readonly active: number };
  readonly outboxPending: number;
}

/**
 * Row counts of one tenant across the aggregates, in one statement. Runs in a system transaction
 * with the tenant named explicitly in every subquery (an admin reads counts, never rows).
 */
@Injectable()
export class TenantStatsRepository {
  async counts(tx: Tx, tenantId: string): Promise<TenantCounts> {
    const { rows } = await tx.query<{ counts: TenantCounts }>(
      `SELECT jsonb_build_object(
         'memories', (SELECT jsonb_build_object('live', count(*) FILTER (WHERE deleted_at IS NULL),
                                                'deleted', count(*) FILTER (WHERE deleted_at IS NOT NULL))
                        FROM memories WHERE tenant_id = $1),
         'users', (SELECT jsonb_build_object('total', count(*), 'disabled', count(*) FILTER (WHERE disabled_at IS NOT NULL),
                                             'admins', count(*) FILTER (WHERE is_admin))
                     FROM users WHERE tenant_id = $1),
         'keys', (SELECT jsonb_build_object(
                           'active', count(*) FILTER (WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())),
                           'revoked', count(*) FILTER (WHERE revoked_at IS NOT NULL),
                           'expired', count(*) FILTER (WHERE revoked_at IS NULL AND expires_at <= now()))
                    FROM api_keys WHERE tenant_id = $1),
         'sessions', (SELECT jsonb_build_object('total', count(*), 'active', count(*) FILTER (WHERE status = 'active'))
                        FROM sessions WHERE tenant_id = $1),
         'outboxPending', (SELECT count(*) FROM outbox WHERE dispatched_at IS NULL AND tenant_id = $1)
       ) AS counts`,
      [tenantId],
    );
    return rows[0].counts;
  }
}
