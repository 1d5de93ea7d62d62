import type { QueryOptions, Tx } from './tx';

/** One parameterised statement, built by a repository and run by whoever batches it. */
export interface SqlStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * Runs independent INSERT/UPDATE/DELETE statements as ONE statement (each a data-modifying CTE),
 * so a write's bookkeeping rows cost one round trip instead of one each. The statements see the
 * same snapshot and cannot read each other's rows, so only batch ones that do not depend on each
 * other. Placeholders are renumbered: the statements must not contain `$` other than `$n`.
 * `options.prepared` keeps the combined text prepared (only for statements whose texts are fixed
 * templates: one prepared statement per distinct text and connection).
 */
export async function runTogether(
  tx: Tx,
  statements: readonly SqlStatement[],
  options?: QueryOptions,
): Promise<void> {
  if (statements.length === 0) return;
  if (statements.length === 1) {
    await tx.query(statements[0].sql, statements[0].params, options);
    return;
  }
  const { parts, params } = renumbered(statements);
  await tx.query(`WITH ${parts.map((sql, i) => `s${i} AS (${sql})`).join(',\n')} SELECT 1`, params, options);
}

/**
 * In a statement that follows an INSERT in `insertThen`: the row that INSERT wrote. A follower
 * built for it writes one row per row inserted, so none when the INSERT wrote nothing.
 */
export const NEW_ROW: unique symbol = Symbol('the row inserted before');

/** A row's id as a follower statement gets it: known, or the row `insertThen`'s INSERT writes. */
export type RowId = number | typeof NEW_ROW;

/**
 * How a statement of the form `INSERT INTO t (…) SELECT <values>` names a row id: a parameter
 * pushed onto `params` (`from` empty: one row), or the inserted row's `id` (`from`: ` FROM new_row`).
 * `SELECT` does not take its parameters' types from the target columns: cast them.
 */
export function rowIdSql(id: RowId, params: unknown[]): { readonly id: string; readonly from: string } {
  if (id === NEW_ROW) return { id: 'new_row.id', from: ' FROM new_row' };
  params.push(id);
  return { id: `$${params.length}::bigint`, from: '' };
}

/**
 * One statement, one round trip: `insert` (an `INSERT … RETURNING id, …`) and the `followers` that
 * depend on the row it writes (built with `NEW_ROW`), as data-modifying CTEs. Answers the inserted
 * row with `created: true`; when the INSERT wrote nothing (`ON CONFLICT DO NOTHING`, a `WHERE`
 * that refused it), `otherwise`'s rows (the same columns) with `created: false` — read in the
 * statement's snapshot, so a row committed while the statement waited on a conflict is not among
 * them: the caller then looks again.
 */
export async function insertThen<Row>(
  tx: Tx,
  insert: SqlStatement,
  followers: readonly SqlStatement[],
  otherwise: SqlStatement | null,
  options?: QueryOptions,
): Promise<(Row & { created: boolean })[]> {
  const { parts, params } = renumbered([insert, ...followers, ...(otherwise ? [otherwise] : [])]);
  const [head, ...rest] = parts;
  const others = otherwise ? rest.pop() : undefined;
  const ctes = [`new_row AS (${head})`, ...rest.map((sql, i) => `s${i} AS (${sql})`)];
  const fallback =
    others === undefined
      ? ''
      : `\nUNION ALL SELECT *, false FROM (${others}) AS existing WHERE NOT EXISTS (SELECT FROM new_row)`;
  const { rows } = await tx.query<Row & { created: boolean }>(
    `WITH ${ctes.join(',\n')}\nSELECT *, true AS created FROM new_row${fallback}`,
    params,
    options,
  );
  return rows;
}

/** The statements' texts with their placeholders numbered in one sequence, and their parameters. */
function renumbered(statements: readonly SqlStatement[]): { parts: string[]; params: unknown[] } {
  const params: unknown[] = [];
  const parts = statements.map((statement) => {
    const offset = params.length;
    params.push(...statement.params);
    return statement.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  return { parts, params };
}
