import { Injectable } from '@nestjs/common';
import { type SqlStatement, type Tx } from '@app/persistence';
import { isSystemActor, type Actor } from '../domain/actor';

export interface AuditEntry {
  readonly action: string;
  readonly targetType: string;
  readonly targetId?: string | number | null;
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
    return {
      sql: `INSERT INTO audit_log (tenant_id, actor_id, key_id, action, target_type, target_id, request_id, details)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      params: [
        actor.tenantId,
        system ? null : actor.userId,
        system ? null : actor.keyId,
        entry.action,
        entry.targetType,
        entry.targetId === undefined || entry.targetId === null ? null : String(entry.targetId),
        actor.requestId ?? null,
        JSON.stringify(details),
      ],
    };
  }
}
