/** Who a tenant transaction acts for; row-level security policies read these two ids. */
export interface TenantScope {
  readonly tenantId: string;
  readonly userId: string;
  /** The caller's key scopes; `admin` lets row-level security show every memory of the tenant. */
  readonly scopes?: readonly string[];
}

export interface QueryResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number;
}

/**
 * An open transaction. Repositories receive it from the use case so that several writes
 * (row, outbox, audit) commit together; nothing outside libs/persistence sees TypeORM.
 */
export interface Tx {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
  /** Runs `callback` once the transaction has committed, never after a rollback; it must not throw. */
  afterCommit(callback: () => void): void;
}
