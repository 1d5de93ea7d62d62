import { createHash } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { DatabaseUnavailableError } from './database-unavailable.error';
import { readsEveryMemory, type QueryOptions, type QueryResult, type TenantScope, type Tx } from './tx';
import { mayWrite, TENANT_WRITES } from './tenant-writes';
import { formatLsn, parseLsn, type Lsn } from './replicas/lsn';
import { ReplicaBehindError, type AwaitedPosition, type ReplicaReads } from './replicas/replica-reads';

const ROLE = /^[a-z_][a-z0-9_]{0,62}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Deadlock detected, serialization failure: Postgres rolled the transaction back; running it again may succeed. */
const CONFLICT_CODES = new Set(['40P01', '40001']);

export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONFLICT_CODES.has(code);
}

/**
 * Postgres refused a row the statement would write because row-level security does not let the
 * caller hold it afterwards (42501 from a policy's check); the statement changed nothing.
 */
export function isRowSecurityRefusal(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '42501' && typeof message === 'string' && message.includes('row-level security');
}

export interface TransactionOptions {
  /**
   * Runs the work again, at most this many times, when Postgres aborts it as a deadlock victim or
   * on a serialization failure. Only for work whose every effect is inside the transaction (it was
   * rolled back, so running it again is safe) and that a client would retry anyway.
   */
  readonly retryConflicts?: number;
  /**
   * Plan the transaction's prepared statements once per connection (`plan_cache_mode =
   * force_generic_plan`). For statements whose best plan does not depend on the values bound —
   * such as the visibility branches, which differ only in the tenant and caller ids — Postgres
   * otherwise keeps re-planning on every execution, because the plan made for the values looks
   * cheaper, and planning those statements costs several times their execution. Functions that
   * need plans for the actual values set `plan_cache_mode` themselves.
   */
  readonly genericPlans?: boolean;
  /**
   * Maintenance work that may run for long (ANALYZE, erasing a user's data): lifts the statement
   * timeout for this transaction and waits for the database's answers however long they take.
   */
  readonly unbounded?: boolean;
  /**
   * The work only reads (the transaction is opened READ ONLY, so a write in it fails). Where read
   * replicas are configured a replica that has replayed every write the caller must see may answer
   * it; the primary otherwise, and also when the replica fails under the work, which then runs
   * again there. `streamed`: the work sends its answer while it reads, so it never runs twice (a
   * replica failing under it fails it, as the primary failing would).
   */
  readonly readOnly?: boolean | 'streamed';
  /**
   * With `readOnly`: the answer stops at the server's settled horizon (the sync feed). A standby's
   * horizon may be held back by transactions of other databases it cannot tell apart, so a request
   * that must see a given write (its own recent one, or a token's) is answered by the primary.
   */
  readonly horizonBound?: boolean;
}

/** For work that only reads (see `TransactionOptions.readOnly`). */
export const READ_ONLY: TransactionOptions = { readOnly: true };

export interface TransactionRunnerOptions {
  /**
   * Honour `QueryOptions.prepared` with named statements. Only where every pooled connection is
   * its own backend session: embedded mode's connections share one PGlite backend, where a second
   * connection preparing the same name would fail.
   */
  readonly preparedStatements?: boolean;
  /**
   * How long a statement may go without any answer before its connection is given up and the work
   * fails with `DatabaseUnavailableError` (set it above the server's statement timeout, which
   * answers first whenever the server can be reached). Unset: wait as long as the socket stays open,
   * which on a dropped network path is for ever.
   */
  readonly answerTimeoutMs?: number;
  /**
   * Send a transaction's opening (BEGIN with its settings) together with its first statement, and
   * `COMMIT` together with a statement marked `last`, instead of waiting for each answer in turn:
   * a short write is then one or two round trips. Only against a real Postgres server: embedded
   * mode's connections are served one message at a time by one PGlite backend.
   */
  readonly pipelining?: boolean;
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
 *   `app.tenant_id` / `app.user_id`, `app.tenant_admin` for an admin key and `app.admin` for one granted
 *   the members' private memories (`readsEveryMemory`), with `set_config(..., true)`, so the settings vanish at
 *   commit and a pooled connection never carries them into another request.
 * - `asSystem`: for trusted system paths (key lookup, outbox relay, bootstrap); sets
 *   `app.system` for the transaction, which only the schema owner's policy honours.
 */
export class TransactionRunner {
  private replicas: ReplicaReads | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly appRole: string,
    private readonly options: TransactionRunnerOptions = {},
  ) {
    if (!ROLE.test(appRole))
      throw new Error(`application role must be a lower-case SQL identifier, got ${appRole}`);
  }

  /**
   * Serves read-only tenant work from streaming replicas (see ReplicaReads); from then on each
   * tenant write's commit position is recorded, so that its author's reads see it.
   */
  readFrom(replicas: ReplicaReads): void {
    this.replicas = replicas;
  }

  async inTenant<T>(
    scope: TenantScope,
    work: (tx: Tx) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    if (options.readOnly && this.replicas) {
      return this.replicas.read(
        scope,
        { rerunnable: options.readOnly !== 'streamed', horizonBound: options.horizonBound === true },
        (replica, awaited) => replica.inTenantOn(scope, work, options, awaited),
        () => this.inTenantOn(scope, work, options, null),
      );
    }
    return this.inTenantOn(scope, work, options, null);
  }

  /** `inTenant` on this runner's own database; `awaited`: a position to see replayed first. */
  private async inTenantOn<T>(
    scope: TenantScope,
    work: (tx: Tx) => Promise<T>,
    options: TransactionOptions,
    awaited: AwaitedPosition | null,
  ): Promise<T> {
    if (!UUID.test(scope.tenantId) || !UUID.test(scope.userId)) throw new InvalidTenantScopeError();
    // One round trip opens the transaction and sets its context: a simple query may hold several
    // statements but no parameters, so the values are written in (UUIDs checked, the role quoted).
    const tenantAdmin = scope.scopes?.includes('admin') ? 'on' : 'off';
    const admin = readsEveryMemory(scope) ? 'on' : 'off';
    const opening = `BEGIN${options.readOnly ? ' READ ONLY' : ''}; SELECT set_config('role', ${literal(this.appRole)}, true),
      set_config('app.tenant_id', '${scope.tenantId}', true), set_config('app.user_id', '${scope.userId}', true),
      set_config('app.tenant_admin', '${tenantAdmin}', true), set_config('app.admin', '${admin}', true)${
        options.genericPlans && this.options.preparedStatements
          ? `, set_config('plan_cache_mode', 'force_generic_plan', true)`
          : ''
      }`;
    for (let retries = options.retryConflicts ?? 0; ; retries--) {
      try {
        return await this.run(work, opening, options.unbounded === true, scope.tenantId, {
          awaited,
          // A write's position is kept for its author's reads only where replicas may serve them.
          author: this.replicas && !options.readOnly ? scope : null,
        });
      } catch (error) {
        if (retries <= 0 || !isTransactionConflict(error)) throw error;
      }
    }
  }

  /**
   * `author`: the user a system write is made for (a review settled, a user's data erased): where
   * replicas serve reads, their reads see it as they see their own writes.
   */
  async asSystem<T>(
    work: (tx: Tx) => Promise<T>,
    options: Pick<TransactionOptions, 'unbounded'> & { readonly author?: TenantScope } = {},
  ): Promise<T> {
    return this.run(
      work,
      `BEGIN; SELECT set_config('app.system', 'on', true)`,
      options.unbounded === true,
      null,
      this.replicas && options.author ? { awaited: null, author: options.author } : NO_POSITIONS,
    );
  }

  /**
   * Maintenance that cannot run inside a transaction block (`CREATE INDEX CONCURRENTLY`): `work`
   * gets one pooled connection of its own, in autocommit, as the connecting role (the schema owner,
   * no tenant context), with the statement timeout lifted for the session. Session settings and
   * advisory locks are reset before the connection goes back to the pool.
   */
  async maintenanceSession<T>(
    work: (query: <Row>(sql: string, params?: readonly unknown[]) => Promise<Row[]>) => Promise<T>,
  ): Promise<T> {
    const runner = await this.connected();
    try {
      await runner.query('SET statement_timeout = 0').catch(lostConnection);
      return await work(async <Row>(sql: string, params?: readonly unknown[]) => {
        const rows: unknown = await runner.query(sql, params ? [...params] : undefined).catch(lostConnection);
        return (Array.isArray(rows) ? rows : []) as Row[];
      });
    } finally {
      await runner.query('RESET ALL; SELECT pg_advisory_unlock_all()').catch(() => undefined);
      await runner.release();
    }
  }

  /**
   * `SELECT 1` outside any transaction, for readiness probes: at most `timeoutMs` for its answer. A
   * connection that gave none is closed instead of returned to the pool, so probes made while the
   * database is unreachable do not keep the pool's connections until it answers again.
   */
  async ping(timeoutMs: number): Promise<void> {
    const runner = await this.connected();
    try {
      await answered(runner, runner.query('SELECT 1').catch(lostConnection), timeoutMs);
    } finally {
      await runner.release();
    }
  }

  /**
   * Where this server stands in the write-ahead log, outside any transaction, within `timeoutMs`:
   * a primary's write position, or a standby's (`recovering`) replay position.
   */
  async serverPosition(timeoutMs: number): Promise<{ recovering: boolean; lsn: Lsn | null }> {
    const runner = await this.connected();
    try {
      const rows = (await answered(
        runner,
        runner
          .query(
            `SELECT pg_is_in_recovery() AS recovering, (CASE WHEN pg_is_in_recovery()
               THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn`,
          )
          .catch(lostConnection),
        timeoutMs,
      )) as Array<{ recovering: boolean; lsn: string | null }>;
      return { recovering: rows[0].recovering, lsn: parseLsn(rows[0].lsn) };
    } finally {
      await runner.release();
    }
  }

  /** A pooled connection, or unavailability: none within the pool's connect timeout, or refused (nothing was sent). */
  private async connected(): Promise<QueryRunner> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      return runner;
    } catch (error) {
      throw new DatabaseUnavailableError(reasonOf(error), error);
    }
  }

  /**
   * `tenantId`: whose write a committed write is (TENANT_WRITES); null for a system transaction.
   * `positions.awaited`: a position this connection's server must have replayed before the work
   * reads; `positions.author`: whose reads must see the transaction's commit, if it wrote.
   */
  private async run<T>(
    work: (tx: Tx) => Promise<T>,
    opening: string,
    unbounded: boolean,
    tenantId: string | null,
    positions: Positions,
  ): Promise<T> {
    const runner = await this.connected();
    const answer = unbounded ? undefined : this.options.answerTimeoutMs;
    const send: Send = (statement, params) =>
      answered(runner, runner.query(statement as string, params, true).catch(lostConnection), answer);
    const begin = unbounded ? `${opening}; SET LOCAL statement_timeout = 0` : opening;
    const pipelining = this.options.pipelining === true && pipelineOf(runner) !== undefined;
    // Recording the commit position: whether the transaction wrote, COMMIT, then the position.
    const closing = positions.author ? [WROTE, 'COMMIT', POSITION] : ['COMMIT'];
    // pending: the opening not sent yet (it goes with the first statement); committed: COMMIT went
    // with a statement marked last (the server ended the transaction either way).
    // ended: the work is over and the connection goes back to the pool; nothing may be sent after.
    const state = { pending: pipelining, committed: false, wrote: false, ended: false };
    // Statements marked `withNext`, waiting for the statement they go with.
    const held: Held[] = [];
    let closed: ReadonlyArray<PromiseSettledResult<Answer>> = [];
    try {
      try {
        if (!pipelining) await send(begin);
        const committed: Array<() => void> = [];
        const sendBatch = async (statement: Statement, params: unknown[] | undefined, last: boolean) => {
          if (state.ended) throw new Error('the transaction has ended');
          if (state.committed) throw new Error('the transaction was committed with its last statement');
          const ahead = held.splice(0);
          for (const { statement: s } of [...ahead, { statement }]) {
            state.wrote ||= mayWrite(typeof s === 'string' ? s : s.text);
          }
          const batch: Array<[Statement, unknown[] | undefined]> = [];
          if (state.pending) batch.push([begin, undefined]);
          const first = batch.length;
          for (const h of ahead) batch.push([h.statement, h.params]);
          batch.push([statement, params]);
          if (last && pipelining) for (const text of closing) batch.push([text, undefined]);
          state.pending = false;
          if (batch.length === 1) return send(statement, params);
          state.committed = last && pipelining;
          const settled = await pipelineSettled(
            runner,
            batch.map(
              ([text, values]) =>
                () =>
                  send(text, values),
            ),
          );
          if (state.committed) closed = settled.slice(settled.length - closing.length);
          ahead.forEach((h, i) => h.settle(settled[first + i]));
          // The first failure in order is the transaction's; once COMMIT answered, the position read
          // after it is not (a committed write is never reported as failed).
          const failed = settled
            .slice(0, state.committed && positions.author ? settled.length - 1 : settled.length)
            .find((s): s is PromiseRejectedResult => s.status === 'rejected');
          if (failed) throw failed.reason;
          return (settled[first + ahead.length] as PromiseFulfilledResult<Answer>).value;
        };
        // What is still held when the turn ends goes alone (its last statement carries the rest).
        const flushHeld = async () => {
          const alone = held.pop();
          if (!alone) return;
          await sendBatch(alone.statement, alone.params, false).then(
            (value) => alone.settle({ status: 'fulfilled', value }),
            (reason: unknown) => alone.settle({ status: 'rejected', reason }),
          );
        };
        const statements: StatementSender = async (statement, params, last, withNext) => {
          if (!withNext || !pipelining) return sendBatch(statement, params, last);
          if (state.ended) throw new Error('the transaction has ended');
          if (state.committed) throw new Error('the transaction was committed with its last statement');
          return new Promise<Answer>((resolve, reject) => {
            const settle = (outcome: PromiseSettledResult<Answer>) =>
              outcome.status === 'fulfilled' ? resolve(outcome.value) : reject(outcome.reason);
            held.push({ statement, params, settle });
            if (held.length === 1) setImmediate(() => void flushHeld());
          });
        };
        if (positions.awaited) await awaitReplay(statements, positions.awaited);
        const result = await work(wrap(statements, committed, this.options.preparedStatements === true));
        await flushHeld();
        // Nothing was sent (a pipelined opening waits for a statement): nothing to commit.
        if (!state.committed && !state.pending) {
          closed = await (pipelining && closing.length > 1
            ? pipelineSettled(
                runner,
                closing.map((text) => () => send(text)),
              )
            : inTurn(closing.map((text) => () => send(text))));
          // The work may have swallowed a failed statement, leaving the transaction aborted: COMMIT
          // then rolls back without an error, and the check before it fails (nothing was written).
          const commit = closed[closing.indexOf('COMMIT')];
          if (commit.status === 'rejected') throw commit.reason;
        }
        if (state.wrote) TENANT_WRITES.committed(tenantId);
        if (positions.author && this.replicas) {
          const position = commitPosition(closed);
          if (position !== undefined) await this.replicas.wrote(positions.author, position);
        }
        for (const callback of committed) callback();
        return result;
      } catch (error) {
        // A connection given up on cannot roll back; closing it ends the transaction server-side.
        if (!(error instanceof DatabaseUnavailableError) && !state.pending && !state.committed)
          await runner.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      state.ended = true;
      // Held for a statement that never came, by work that failed first: never sent.
      const unsent = new Error('the transaction ended before this statement was sent');
      for (const h of held.splice(0)) h.settle({ status: 'rejected', reason: unsent });
      await runner.release();
    }
  }
}

/** What `run` is to wait for and to record; see `run`. */
interface Positions {
  readonly awaited: AwaitedPosition | null;
  readonly author: TenantScope | null;
}

const NO_POSITIONS: Positions = { awaited: null, author: null };

/** Whether the transaction holds a transaction id: it wrote (a read-only transaction never gets one). */
const WROTE = `SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS wrote`;
/**
 * After COMMIT: a position past the commit's record. The insert position, not the write position:
 * with `synchronous_commit = off` the commit may not be written out yet when COMMIT answers.
 */
const POSITION = `SELECT pg_current_wal_insert_lsn()::text AS lsn`;

/**
 * The position to record from the answers of [WROTE, COMMIT, POSITION]: undefined when the
 * transaction wrote nothing; null when it wrote but the position could not be read (unknown).
 */
function commitPosition(closed: ReadonlyArray<PromiseSettledResult<Answer>>): Lsn | null | undefined {
  if (closed.length !== 3) return undefined;
  const [wrote, , position] = closed;
  const row = (answer: PromiseSettledResult<Answer>) =>
    answer.status === 'fulfilled'
      ? (answer.value.records?.[0] as Record<string, unknown> | undefined)
      : undefined;
  if (row(wrote)?.wrote !== true) return undefined;
  return parseLsn(row(position)?.lsn as string | undefined);
}

/**
 * Waits, inside the transaction, until its server has replayed `awaited.lsn` (READ COMMITTED: each
 * later statement reads a snapshot taken after the wait). Gives up after `maxWaitMs`.
 */
async function awaitReplay(statements: StatementSender, awaited: AwaitedPosition): Promise<void> {
  const deadline = Date.now() + awaited.maxWaitMs;
  const lsn = formatLsn(awaited.lsn);
  for (;;) {
    const answer = await statements(
      `SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS replayed`,
      [lsn],
      false,
      false,
    );
    if ((answer.records?.[0] as { replayed?: boolean } | undefined)?.replayed === true) return;
    const left = deadline - Date.now();
    if (left <= 0) throw new ReplicaBehindError();
    await new Promise((resolve) => setTimeout(resolve, Math.min(10, left)));
  }
}

/** Sends statements one after another, each once the previous answered; every outcome is kept. */
async function inTurn(sends: ReadonlyArray<() => Promise<Answer>>): Promise<PromiseSettledResult<Answer>[]> {
  const settled: PromiseSettledResult<Answer>[] = [];
  for (const next of sends) {
    try {
      settled.push({ status: 'fulfilled', value: await next() });
    } catch (reason) {
      settled.push({ status: 'rejected', reason });
    }
  }
  return settled;
}

/** The `pg` client under a TypeORM query runner, where it can pipeline (`pg` 8.23's pipeline mode). */
interface PipelineClient {
  pipeline: boolean;
  readonly connection?: { readonly stream?: { cork(): void; uncork(): void } };
}

function pipelineOf(runner: QueryRunner): PipelineClient | undefined {
  const client = (runner as unknown as { databaseConnection?: { pipeline?: unknown } }).databaseConnection;
  return typeof client?.pipeline === 'boolean' ? (client as PipelineClient) : undefined;
}

/**
 * Sends every statement at once and waits for all answers (in pipeline mode `pg` writes each
 * query as it is issued, each with its own Sync; inside a transaction block an error aborts the
 * block, so a statement after a failed one fails too, and a COMMIT after it rolls back). Every
 * outcome is returned in order: callers throw the first failure, so a COMMIT's failure is never
 * hidden behind a statement's success. The client leaves pipeline mode once nothing is in flight.
 */
async function pipelineSettled<R>(
  runner: QueryRunner,
  sends: ReadonlyArray<() => Promise<R>>,
): Promise<PromiseSettledResult<R>[]> {
  const client = pipelineOf(runner);
  if (!client) throw new Error('pipelining needs a pg client');
  client.pipeline = true;
  // The statements reach the socket a few microtasks apart: held back until this turn of the event
  // loop ends, they leave in one write, and Postgres reads them in one wake-up.
  const stream = client.connection?.stream;
  stream?.cork();
  if (stream) setImmediate(() => stream.uncork());
  try {
    return await Promise.allSettled(sends.map((next) => next()));
  } finally {
    client.pipeline = false;
  }
}

/** How the transaction's work sends a statement; `last`: COMMIT may go with it; `withNext`: held for the next. */
type StatementSender = (
  statement: Statement,
  params: unknown[] | undefined,
  last: boolean,
  withNext: boolean,
) => Promise<Answer>;

type Statement = string | { name: string; text: string };

/** A statement marked `withNext`, and how its answer reaches the work. */
interface Held {
  readonly statement: Statement;
  readonly params: unknown[] | undefined;
  readonly settle: (outcome: PromiseSettledResult<Answer>) => void;
}

type Send = (statement: string | { name: string; text: string }, params?: unknown[]) => Promise<Answer>;

/** A statement's answer as TypeORM's query runner gives it (raw results). */
type Answer = { records?: unknown[]; affected?: number };

/**
 * Waits for a statement's answer at most `timeoutMs`. Past that the connection is closed (pg-pool
 * then drops it instead of handing a connection with a hung statement to the next request) and the
 * work fails as unavailable.
 */
async function answered<T>(
  runner: QueryRunner,
  statement: Promise<T>,
  timeoutMs: number | undefined,
): Promise<T> {
  if (timeoutMs === undefined) return statement;
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const client = (
        runner as unknown as { databaseConnection?: { end(): Promise<void>; pipeline?: boolean } }
      ).databaseConnection;
      // pg closes the socket at once when a statement is still waiting for its answer (out of
      // pipeline mode: there it would wait for the pipelined answers first).
      if (client?.pipeline === true) client.pipeline = false;
      void client?.end().catch(() => undefined);
      reject(new DatabaseUnavailableError(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([statement, silence]);
  } finally {
    clearTimeout(timer);
  }
}

/** Socket-level failures of a statement in flight (pg's own messages and Node's error codes). */
const LOST = /connection terminated|not queryable|ECONNRESET|EPIPE|ETIMEDOUT|ECONNREFUSED/i;

/**
 * The connection broke under a statement (reset, closed by the server or a proxy): the database
 * gave no answer, so this is unavailability, not a failure of the statement. Errors Postgres
 * itself answered (they carry a SQLSTATE `code` of five characters) pass through unchanged.
 */
function lostConnection(error: unknown): never {
  type Failure = { code?: unknown; message?: unknown; driverError?: Failure } | null | undefined;
  const driver = (error as Failure)?.driverError ?? (error as Failure);
  const code = typeof driver?.code === 'string' ? driver.code : '';
  const message = typeof driver?.message === 'string' ? driver.message : '';
  if (!/^[0-9A-Z]{5}$/.test(code) && LOST.test(`${code} ${message}`)) {
    throw new DatabaseUnavailableError('connection lost', error);
  }
  throw error;
}

/** Why no connection came, without the driver's wording (which names internal addresses). */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /timeout/i.test(message) ? 'no connection in time' : 'no connection';
}

function wrap(send: StatementSender, committed: Array<() => void>, prepare: boolean): Tx {
  return {
    afterCommit(callback: () => void): void {
      committed.push(callback);
    },
    async query<Row>(
      sql: string,
      params?: readonly unknown[],
      options?: QueryOptions,
    ): Promise<QueryResult<Row>> {
      const statement = prepare && options?.prepared ? namedStatement(sql) : sql;
      const result = await send(
        statement,
        params ? [...params] : undefined,
        options?.last === true,
        options?.withNext === true,
      );
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

/**
 * `pg` prepares a query config with a name once per connection and then only binds it. The name
 * is the text's hash, so one name never stands for two texts (pg refuses that). TypeORM hands the
 * query to `pg` as it is (its errors still come back as QueryFailedError).
 */
function namedStatement(sql: string): { name: string; text: string } {
  return { name: `s_${createHash('sha1').update(sql).digest('hex')}`, text: sql };
}
