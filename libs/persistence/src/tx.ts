/** Who a tenant transaction acts for; row-level security policies read these two ids. */
export interface TenantScope {
  readonly tenantId: string;
  readonly userId: string;
  /**
   * The caller's key scopes. `admin` makes the caller a tenant admin (its settings, sessions); it
   * shows the members' private memories only together with `privateAccess`.
   */
  readonly scopes?: readonly string[];
  /**
   * An admin key given access to the members' private memories for this request: the tenant allows
   * it (`admin_private_access`) and the admin gave a reason, which was audited. Row-level security
   * checks the tenant setting again (`app_is_admin()`).
   */
  readonly privateAccess?: boolean;
}

/** Whether `scope` reads every memory of its tenant (an admin granted private access). */
export function readsEveryMemory(scope: TenantScope): boolean {
  return scope.privateAccess === true && scope.scopes?.includes('admin') === true;
}

export interface QueryResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number;
}

export interface QueryOptions {
  /**
   * Keep the statement prepared on the connection, so that Postgres can stop planning it: after
   * five runs it keeps a generic plan when that costs no more than planning each time. For lookups
   * by key, whose best plan does not depend on the values: under row-level security planning them
   * costs several times running them. Not for statements whose plan must follow the caller's data
   * (a visible set's size decides the join). Ignored where the runner does not prepare statements.
   */
  readonly prepared?: boolean;
  /**
   * Nothing follows this statement in the transaction: where the runner pipelines, `COMMIT` is
   * sent with it, so the statement's answer is the commit's. A later statement in the same
   * transaction fails; work that fails after it no longer rolls anything back.
   */
  readonly last?: boolean;
  /**
   * Send this statement with the next one the work issues in the same turn of the event loop, in
   * its round trip (where the runner pipelines; elsewhere it is sent at once). The statement still
   * runs first, in a snapshot of its own: a lock it takes is held when the next one starts. Await
   * its answer together with the next statement's (`Promise.all`); when nothing follows within the
   * turn, it is sent alone.
   */
  readonly withNext?: boolean;
}

/**
 * An open transaction. Repositories receive it from the use case so that several writes
 * (row, outbox, audit) commit together; nothing outside libs/persistence sees TypeORM.
 */
export interface Tx {
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<Row>>;
  /** Runs `callback` once the transaction has committed, never after a rollback; it must not throw. */
  afterCommit(callback: () => void): void;
}
