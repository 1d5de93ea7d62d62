import { Injectable } from '@nestjs/common';
import { NEW_ROW, rowIdSql, type RowId, type SqlStatement, type Tx } from '@app/persistence';
import { isSystemActor, type Actor } from '../domain/actor';

export interface AuditEntry {
  readonly action: string;
  readonly targetType: string;
  /** `NEW_ROW`: the row the statement that this one follows inserts (see `insertThen`). */
  readonly targetId?: string | RowId | null;
  readonly details?: Record<string, unknown>;
}

/**
 * Appends an audit row inside the caller's transaction, so it commits with the change it records.
 * A key holder is recorded as actor and key; a system actor (CLI, bootstrap) as a null actor with
 * `details.via` naming it.
 */
@Injectable()
export class AuditWriter {
  async record(actor: Actor, tx: Tx, entry: AuditEntry): Promise<void> {
    const { sql, params } = this.statement(actor, entry);
    await tx.query(sql, params);
  }

  /** The audit row's INSERT, for the caller to run in its transaction (alone or batched). */
  statement(actor: Actor, entry: AuditEntry): SqlStatement {
    const system = isSystemActor(actor);
    const details = system ? { ...entry.details, via: actor.via } : (entry.details ?? {});
    const params: unknown[] = [
      actor.tenantId,
      system ? null : actor.userId,
      system ? null : actor.keyId,
      entry.action,
      entry.targetType,
      actor.requestId ?? null,
      JSON.stringify(details),
    ];
    const target = entry.targetId;
    let targetSql = '$8::text';
    let from = '';
    if (target === NEW_ROW) {
      const row = rowIdSql(NEW_ROW, params);
      targetSql = `${row.id}::text`;
      from = row.from;
    } else {
      params.push(target === undefined || target === null ? null : String(target));
    }
    return {
      sql: `INSERT INTO audit_log (tenant_id, actor_id, key_id, action, target_type, request_id, details, target_id)
            SELECT $1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, $7::jsonb, ${targetSql}${from}`,
      params,
    };
  }
}
