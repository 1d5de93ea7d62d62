import { NEW_ROW, rowIdSql, type SqlStatement, type TenantScope, type Tx } from '@app/persistence';
import { JOB_DEFINITIONS, type JobName, type JobPayload } from './job-definitions';
import { OUTBOX_COMMITS } from './outbox/outbox-signal';

/**
 * Records background work in the same transaction as the write that needs it; the outbox relay
 * later moves the row to the queue, so a committed write never loses its job (even if Redis is down)
 * and a rolled-back write never runs one. The commit wakes this process's relay.
 */
export class OutboxWriter {
  async enqueue<N extends JobName>(
    scope: TenantScope,
    tx: Tx,
    job: { name: N; payload: JobPayload<N>; requestId?: string },
  ): Promise<void> {
    const { sql, params } = this.enqueueStatement(scope, tx, job);
    await tx.query(sql, params);
  }

  /**
   * The outbox row's INSERT, for the caller to run in `tx` (alone or batched with others). With
   * `newRowId`, that field of the payload is the id of the row the statement this one follows in
   * `insertThen` inserts (the payload carries a placeholder for it), and there is no job without it.
   */
  enqueueStatement<N extends JobName>(
    scope: TenantScope,
    tx: Tx,
    job: { name: N; payload: JobPayload<N>; requestId?: string },
    newRowId?: keyof JobPayload<N> & string,
  ): SqlStatement {
    const payload = JOB_DEFINITIONS[job.name].parse(job.payload);
    tx.afterCommit(() => OUTBOX_COMMITS.committed());
    const params: unknown[] = [scope.tenantId, job.name, JSON.stringify(payload), job.requestId ?? null];
    let payloadSql = '$3::jsonb';
    let from = '';
    if (newRowId !== undefined) {
      const row = rowIdSql(NEW_ROW, params);
      params.push([newRowId]);
      payloadSql = `jsonb_set($3::jsonb, $5::text[], to_jsonb(${row.id}::text))`;
      from = row.from;
    }
    return {
      sql: `INSERT INTO outbox (tenant_id, job_name, payload, request_id)
            SELECT $1::uuid, $2::text, ${payloadSql}, $4::text${from}`,
      params,
    };
  }
}
