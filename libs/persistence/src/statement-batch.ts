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
  const params: unknown[] = [];
  const parts = statements.map((statement, i) => {
    const offset = params.length;
    params.push(...statement.params);
    const sql = statement.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    return `s${i} AS (${sql})`;
  });
  await tx.query(`WITH ${parts.join(',\n')} SELECT 1`, params, options);
}
