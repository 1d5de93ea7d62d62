import { Injectable } from '@nestjs/common';
import type { Tx } from '@app/persistence';
import {
  AUTH_SELECT,
  toKeyForAuthentication,
  type AuthRow,
  type KeyForAuthentication,
} from './api-key.repository';

export interface NewConsoleSession {
  readonly tenantId: string;
  readonly userId: string;
  readonly keyId: string;
  readonly tokenHash: Buffer;
  readonly maxSeconds: number;
}

/** A live session's key, and whether its last-seen time is due for a refresh. */
export interface ConsoleSessionKey {
  readonly key: KeyForAuthentication;
  readonly tenantId: string;
  readonly seenDue: boolean;
}

/**
 * The console's sign-in sessions (`console_sessions`, migration 1763700000057). System paths only:
 * a request presents a cookie before its tenant is known. Idle and absolute expiry are decided by
 * the database clock, like a key's.
 */
@Injectable()
export class ConsoleSessionRepository {
  /** Starts a session, and drops the tenant's sessions that have ended (idle or past their expiry). */
  async insert(tx: Tx, session: NewConsoleSession, idleSeconds: number): Promise<void> {
    await tx.query(
      `DELETE FROM console_sessions
        WHERE tenant_id = $1 AND (expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $2))`,
      [session.tenantId, idleSeconds],
    );
    await tx.query(
      `INSERT INTO console_sessions (tenant_id, token_hash, user_id, key_id, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [session.tenantId, session.tokenHash, session.userId, session.keyId, session.maxSeconds],
    );
  }

  /**
   * The key of the live session with this token hash (`$2`: last-used throttle of the key), or null
   * when there is none, it is past its expiry, or unused for `idleSeconds`.
   */
  async findLive(
    tx: Tx,
    tokenHash: Buffer,
    options: { idleSeconds: number; touchAfterSeconds: number },
  ): Promise<ConsoleSessionKey | null> {
    const { rows } = await tx.query<AuthRow & { seen_due: boolean }>(
      `${AUTH_SELECT.replace(
        'SELECT ',
        'SELECT s.last_seen_at < now() - make_interval(secs => $2) AS seen_due, ',
      )}
         JOIN console_sessions s ON s.key_id = k.id AND s.tenant_id = k.tenant_id
        WHERE s.token_hash = $1 AND s.expires_at > now()
          AND s.last_seen_at > now() - make_interval(secs => $3)`,
      [tokenHash, options.touchAfterSeconds, options.idleSeconds],
    );
    const row = rows[0];
    return row ? { key: toKeyForAuthentication(row), tenantId: row.tenant_id, seenDue: row.seen_due } : null;
  }

  /** Marks the session used now (its idle clock starts again). */
  async touch(tx: Tx, tenantId: string, tokenHash: Buffer): Promise<void> {
    await tx.query(
      `UPDATE console_sessions SET last_seen_at = now() WHERE tenant_id = $1 AND token_hash = $2`,
      [tenantId, tokenHash],
    );
  }

  /** Ends the session with this token hash (sign-out); whether there was one. */
  async delete(tx: Tx, tokenHash: Buffer): Promise<boolean> {
    const { rowCount } = await tx.query(`DELETE FROM console_sessions WHERE token_hash = $1`, [tokenHash]);
    return rowCount > 0;
  }
}
