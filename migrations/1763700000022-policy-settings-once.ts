import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The request-context functions every row-level security policy calls (migration 1763700000000). */
const CONTEXT_FUNCTIONS = ['app_tenant_id', 'app_user_id', 'app_is_admin', 'app_is_system'];

/**
 * Rewrites one policy expression column of every policy in the schema: `rewrite(column)` is a SQL
 * expression over `pg_policies.qual`/`with_check` giving the new text.
 */
function alterPolicies(rewrite: (column: string) => string): string {
  return `
    DO $$
    DECLARE p record;
    BEGIN
      FOR p IN SELECT tablename, policyname, qual, with_check FROM pg_policies WHERE schemaname = current_schema()
      LOOP
        IF p.qual IS NOT NULL THEN
          EXECUTE format('ALTER POLICY %I ON %I USING (%s)', p.policyname, p.tablename, ${rewrite('p.qual')});
        END IF;
        IF p.with_check IS NOT NULL THEN
          EXECUTE format('ALTER POLICY %I ON %I WITH CHECK (%s)', p.policyname, p.tablename, ${rewrite('p.with_check')});
        END IF;
      END LOOP;
    END $$;`;
}

/**
 * Row-level security that costs once per statement, not once per row, and a list page that stops
 * after its rows.
 *
 * - Every policy read the request context (`app_user_id()`, …) on each row it filtered: a cast of
 *   `current_setting(…)` per row and function, about a third of a count over a team's 10,000
 *   memories. Wrapped in a scalar subquery, each is evaluated once per statement (an InitPlan) and
 *   the rows compare against a constant. Same rule, same values: the settings do not change inside
 *   a statement. Every policy is rewritten, so a policy added later should use the same form.
 * - `GET /api/memories` pages by importance, then newest, over the caller's visible memories read as
 *   disjoint branches (`visibleMemoryBranchesSql`): indexes in that order over an owner's live
 *   memories and over a tenant's live team memories let the own and team branches read their rows in
 *   page order and stop, instead of filtering and sorting the tenant's rows.
 */
export class PolicySettingsOnce1763700000022 implements MigrationInterface {
  name = 'PolicySettingsOnce1763700000022';

  async up(q: QueryRunner): Promise<void> {
    const pattern = `\\m(${CONTEXT_FUNCTIONS.join('|')})\\(\\)`;
    await q.query(
      alterPolicies((column) => `regexp_replace(${column}, '${pattern}', '(SELECT \\1())', 'g')`),
    );
    await q.query(`
      CREATE INDEX memories_owner_list_live
        ON memories (owner_id, importance DESC, created_at DESC, id DESC) WHERE deleted_at IS NULL;
      CREATE INDEX memories_team_list_live
        ON memories (tenant_id, importance DESC, created_at DESC, id DESC)
        WHERE deleted_at IS NULL AND visibility = 'team';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS memories_owner_list_live, memories_team_list_live`);
    // pg_policies shows the subquery as `( SELECT app_user_id() AS app_user_id)`.
    const pattern = `\\( SELECT (${CONTEXT_FUNCTIONS.join('|')})\\(\\) AS \\w+\\)`;
    await q.query(alterPolicies((column) => `regexp_replace(${column}, '${pattern}', '\\1()', 'g')`));
  }
}
