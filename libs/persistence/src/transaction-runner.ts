import type { DataSource, QueryRunner } from 'typeorm';
import type { QueryResult, TenantScope, Tx } from './tx';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Deadlock detected, serialization failure: Postgres rolled the transaction back; running it again may succeed. */
const CONFLICT_CODES = new Set(['40P01', '40001']);

export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONFLICT_CODES.has(code);
}

export interface TransactionOptions {
  /**
   * Runs the work again, at most this many times, when Postgres aborts it as a deadlock victim or
   * on a serialization failure. Only for work whose every effect is inside the transaction (it was
   * rolled back, so running it again is safe) and that a client would retry anyway.
   */
  readonly retryConflicts?: number;
}

export class InvalidTenantScopeError extends Error {
  constructor() {
    super('tenant scope must carry UUID tenant and user ids');
  }
}

/**
 * Opens transactions with the row-level security context applied.
 *
 * - `inTenant`: switches to the application role (neither owner nor BYPASSRLS) and sets
 *   `app.tenant_id` / `app.user_id` (and `app.admin` for an admin key) with `set_config(..., true)`, so the settings vanish at
 *   commit and a pooled connection never carries them into another request.
 * - `asSystem`: for trusted system paths (key lookup, outbox relay, bootstrap); sets
 *   `app.system` for the transaction, which only the schema owner's policy honours.
 */
export class TransactionRunner {
  constructor(
    private readonly dataSource: DataSource,
    private readonly appRole: string,
  ) {}

  async inTenant<T>(
    scope: TenantScope,
    work: (tx: Tx) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    if (!UUID.test(scope.tenantId) || !UUID.test(scope.userId)) throw new InvalidTenantScopeError();
    const admin = scope.scopes?.includes('admin') ? 'on' : 'off';
    const setup = `SELECT set_config('role', ${literal(this.appRole)}, true), set_config('app.tenant_id', '${scope.tenantId}', true),
                          set_config('app.user_id', '${scope.userId}', true), set_config('app.admin', '${admin}', true)`;
    for (let retries = options.retryConflicts ?? 0; ; retries--) {
      try {
        return await this.run(work, setup);
      } catch (error) {
        if (retries <= 0 || !isTransactionConflict(error)) throw error;
      }
    }
  }

  async asSystem<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.run(work, `SELECT set_config('app.system', 'on', true)`);
  }

  /**
   * `setup` goes with BEGIN in one round trip: a query without parameters may hold several
   * statements, so it carries its values as literals (the ids were checked to be UUIDs).
   */
  private async run<T>(work: (tx: Tx) => Promise<T>, setup: string): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      try {
        await runner.query(`BEGIN; ${setup}`);
        const committed: Array<() => void> = [];
        const result = await work(wrap(runner, committed));
        await runner.query('COMMIT');
        for (const callback of committed) callback();
        return result;
      } catch (error) {
        await runner.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      await runner.release();
    }
  }
}

function wrap(runner: QueryRunner, committed: Array<() => void>): Tx {
  return {
    afterCommit(callback: () => void): void {
      committed.push(callback);
    },
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      const result = await runner.query(sql, params ? [...params] : undefined, true);
      return {
        rows: (result.records ?? []) as Row[],
        rowCount: result.affected ?? result.records?.length ?? 0,
      };
    },
  };
}

/** A SQL string literal (standard_conforming_strings, the default since Postgres 9.1). */
function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
