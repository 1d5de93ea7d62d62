import type { Tx } from '@app/persistence';

/** What an erasure removed, per kind of data. */
export interface ErasureCounts {
  readonly memories: number;
  readonly embeddings: number;
  readonly indexStates: number;
  readonly tombstones: number;
  /** Shares of the user's memories and shares with the user, by memory and by tag. */
  readonly shares: number;
  /** Links the user made or that touch the user's memories. */
  readonly links: number;
  /** Earlier versions of the user's memories, and states the user wrote into teammates' memories. */
  readonly versions: number;
  /** The user's own pins, and pins of the user's memories. */
  readonly pins: number;
  /** Agent sessions of the user, with their captured events. */
  readonly sessions: number;
  readonly sessionEvents: number;
  readonly idempotencyKeys: number;
  readonly queuedJobs: number;
  /** Vault secrets queued for deletion (local ciphertexts go with their rows). */
  readonly vaultSecrets: number;
}

const count = async (tx: Tx, sql: string, params: unknown[]): Promise<number> =>
  (await tx.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0;

/** Deletes what `where` selects from `table` and answers how many rows went. */
const deleteCounting = (tx: Tx, table: string, where: string, params: unknown[]): Promise<number> =>
  count(
    tx,
    `WITH gone AS (DELETE FROM ${table} WHERE ${where} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    params,
  );

/**
 * SQL that erases one user's memory data in a system transaction: also the versions of their
 * memories and the versions they wrote of teammates' memories. Embeddings and index states go
 * with their memories (ON DELETE CASCADE); the delete triggers record tombstones (the user's own
 * are removed here too, by `sync_forget_user`, which also invalidates their sync cursors) and
 * cleanup entries for Vault secrets (kept: the sweep deletes the secrets they name).
 */
export class UserDataRepository {
  async erase(tx: Tx, user: { tenantId: string; userId: string }): Promise<ErasureCounts> {
    const owner = [user.tenantId, user.userId];
    const embeddings = await count(
      tx,
      `SELECT count(*)::int AS n FROM memory_embeddings WHERE tenant_id = $1 AND owner_id = $2`,
      owner,
    );
    const indexStates = await count(
      tx,
      `SELECT count(*)::int AS n FROM memory_index_state WHERE tenant_id = $1 AND owner_id = $2`,
      owner,
    );
    const queuedJobs = await deleteCounting(
      tx,
      'outbox',
      `tenant_id = $1 AND dispatched_at IS NULL AND payload->>'userId' = $2::text`,
      owner,
    );
    const vaultSecrets = await count(
      tx,
      `SELECT count(*)::int AS n FROM memories
        WHERE tenant_id = $1 AND owner_id = $2 AND secret_version IS NOT NULL AND secret_ref IS NOT NULL`,
      owner,
    );
    // Before the memories, so the counts include what their cascade would remove silently.
    const shares =
      (await deleteCounting(
        tx,
        'memory_shares',
        'tenant_id = $1 AND (owner_id = $2 OR shared_with = $2)',
        owner,
      )) +
      (await deleteCounting(
        tx,
        'tag_shares',
        'tenant_id = $1 AND (owner_id = $2 OR shared_with = $2)',
        owner,
      ));
    const links = await deleteCounting(
      tx,
      'memory_links',
      `tenant_id = $1 AND (created_by = $2
         OR src_id IN (SELECT id FROM memories WHERE owner_id = $2)
         OR dst_id IN (SELECT id FROM memories WHERE owner_id = $2))`,
      owner,
    );
    const versions = await deleteCounting(
      tx,
      'memory_versions',
      `tenant_id = $1 AND (author_id = $2 OR memory_id IN (SELECT id FROM memories WHERE owner_id = $2))`,
      owner,
    );
    const pins = await deleteCounting(
      tx,
      'memory_pins',
      `tenant_id = $1 AND (user_id = $2 OR memory_id IN (SELECT id FROM memories WHERE owner_id = $2))`,
      owner,
    );
    const sessionEvents = await deleteCounting(
      tx,
      'session_events',
      'tenant_id = $1 AND session_id IN (SELECT id FROM sessions WHERE user_id = $2)',
      owner,
    );
    const sessions = await deleteCounting(tx, 'sessions', 'tenant_id = $1 AND user_id = $2', owner);
    const memories = await deleteCounting(tx, 'memories', 'tenant_id = $1 AND owner_id = $2', owner);
    // After the memories: their delete trigger records tombstones. The user's sync history goes
    // (and with it their cursors); teammates keep the tombstones of what they could see.
    const tombstones = await count(tx, `SELECT sync_forget_user($1, $2) AS n`, owner);
    const idempotencyKeys = await deleteCounting(
      tx,
      'idempotency_keys',
      'tenant_id = $1 AND user_id = $2',
      owner,
    );
    return {
      memories,
      embeddings,
      indexStates,
      tombstones,
      shares,
      links,
      versions,
      pins,
      sessions,
      sessionEvents,
      idempotencyKeys,
      queuedJobs,
      vaultSecrets,
    };
  }
}
