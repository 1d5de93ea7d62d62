import { type TenantScope, type Tx } from '@app/persistence';

export interface SecretCleanupEntry {
  readonly id: string;
  readonly tenantId: string;
  readonly ownerId: string;
  readonly memoryId: string;
  readonly ref: string;
}

/**
 * `secret_cleanup`: Vault secrets that may have no row pointing at them. The write path records an
 * intent before writing to Vault and removes it with the row's commit; a trigger adds one when a
 * row lets go of its secret. The cleanup job deletes secrets no row points at.
 */
export class SecretCleanupRepository {
  async recordIntent(
    scope: TenantScope,
    tx: Tx,
    entry: { memoryId: number; ref: string; graceSeconds: number },
  ): Promise<string> {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO secret_cleanup (tenant_id, owner_id, memory_id, ref, not_before)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING id`,
      [scope.tenantId, scope.userId, entry.memoryId, entry.ref, entry.graceSeconds],
    );
    return rows[0].id;
  }

  async remove(scope: TenantScope, tx: Tx, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await tx.query(
      `DELETE FROM secret_cleanup WHERE id = ANY($1::bigint[]) AND tenant_id = $2 AND owner_id = $3`,
      [ids, scope.tenantId, scope.userId],
    );
  }

  /** Due entries across tenants (system transaction), locked so concurrent sweeps split the work. */
  async lockDue(tx: Tx, limit: number): Promise<SecretCleanupEntry[]> {
    const { rows } = await tx.query<{
      id: string;
      tenant_id: string;
      owner_id: string;
      memory_id: string;
      ref: string;
    }>(
      `SELECT id, tenant_id, owner_id, memory_id, ref FROM secret_cleanup
        WHERE not_before <= now() ORDER BY not_before, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      ownerId: r.owner_id,
      memoryId: r.memory_id,
      ref: r.ref,
    }));
  }

  /** Whether a row (live or soft-deleted) still points at this secret. */
  async isReferenced(tx: Tx, entry: SecretCleanupEntry): Promise<boolean> {
    const { rows } = await tx.query(
      `SELECT 1 FROM memories WHERE id = $1 AND tenant_id = $2 AND is_sensitive AND secret_ref = $3`,
      [entry.memoryId, entry.tenantId, entry.ref],
    );
    return rows.length > 0;
  }

  async removeSystem(tx: Tx, id: string): Promise<void> {
    await tx.query(`DELETE FROM secret_cleanup WHERE id = $1`, [id]);
  }
}
