import { type TenantScope, type Tx } from '@app/persistence';

export type IdempotencyClaim<R> = { kind: 'fresh' } | { kind: 'replay'; response: R } | { kind: 'mismatch' };

/**
 * Remembers the response to a request sent with an Idempotency-Key. The claim row is inserted in
 * the same transaction as the write, so a concurrent retry with the same key waits for the first
 * one to commit (ON CONFLICT blocks on the in-flight row) and then replays its response.
 */
export class IdempotencyRepository {
  async claim<R>(scope: TenantScope, tx: Tx, key: string, requestHash: Buffer): Promise<IdempotencyClaim<R>> {
    const inserted = await tx.query(
      `INSERT INTO idempotency_keys (tenant_id, user_id, key, request_hash, status_code, response)
       VALUES ($1, $2, $3, $4, 0, 'null') ON CONFLICT (user_id, key, tenant_id) DO NOTHING RETURNING key`,
      [scope.tenantId, scope.userId, key, requestHash],
    );
    if (inserted.rowCount > 0) return { kind: 'fresh' };
    const { rows } = await tx.query<{ request_hash: Buffer; response: R }>(
      `SELECT request_hash, response FROM idempotency_keys WHERE tenant_id = $1 AND user_id = $2 AND key = $3`,
      [scope.tenantId, scope.userId, key],
    );
    const prior = rows[0];
    if (!prior || !prior.request_hash.equals(requestHash)) return { kind: 'mismatch' };
    return { kind: 'replay', response: prior.response };
  }

  async complete(scope: TenantScope, tx: Tx, key: string, response: unknown): Promise<void> {
    await tx.query(
      `UPDATE idempotency_keys SET status_code = 200, response = $4 WHERE tenant_id = $1 AND user_id = $2 AND key = $3`,
      [scope.tenantId, scope.userId, key, JSON.stringify(response)],
    );
  }
}
