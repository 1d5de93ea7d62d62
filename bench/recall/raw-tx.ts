import type { Client } from 'pg';
import { type Tx } from '@app/persistence';
import { type Principal } from '@app/tenancy';

/** A `Tx` over a bare pg client: the repositories' SQL, sent as-is, with no transaction or RLS context. */
export function rawTx(pg: Client): Tx {
  return {
    async query<Row>(sql: string, params?: readonly unknown[]) {
      const result = await pg.query(sql, params ? [...params] : undefined);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
    // Autocommit: each statement has committed when it returns.
    afterCommit: (callback) => callback(),
  };
}

/**
 * `work` in one transaction as the application role with the caller's RLS settings, opened the
 * way `TransactionRunner.inTenant` opens it: BEGIN and the settings in one round trip (a simple
 * query takes no parameters, so the values are escaped in), then the work, then COMMIT.
 */
export async function inCallerContext<T>(
  pg: Client,
  principal: Principal,
  appRole: string,
  work: () => Promise<T>,
): Promise<T> {
  const admin = principal.scopes.includes('admin') ? 'on' : 'off';
  await pg.query(
    `BEGIN; SELECT set_config('role', ${pg.escapeLiteral(appRole)}, true),
       set_config('app.tenant_id', ${pg.escapeLiteral(principal.tenantId)}, true),
       set_config('app.user_id', ${pg.escapeLiteral(principal.userId)}, true),
       set_config('app.admin', '${admin}', true)`,
  );
  try {
    const result = await work();
    await pg.query('COMMIT');
    return result;
  } catch (error) {
    await pg.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
