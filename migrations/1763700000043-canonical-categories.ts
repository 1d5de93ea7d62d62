import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The canonical categories' singulars, as rows written before every write folded them hold them. */
const PLURAL_OF: Readonly<Record<string, string>> = {
  fact: 'facts',
  decision: 'decisions',
  preference: 'preferences',
  gotcha: 'gotchas',
  runbook: 'runbooks',
  correction: 'corrections',
  note: 'notes',
};

/**
 * One name per canonical category for rows written before every write path folded categories
 * (`libs/memories` `domain/categories.ts`): `fact`, `Decision` or `DECISIONS` become `facts` and
 * `decisions`, any other category is lowercased, custom ones keep their name. With `app.system`
 * set so the owner policies let the rewrite reach every tenant; `updated_at` stays.
 */
export class CanonicalCategories1763700000043 implements MigrationInterface {
  name = 'CanonicalCategories1763700000043';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    const singulars = Object.keys(PLURAL_OF);
    await q.query(
      `UPDATE memories m SET category = p.plural
         FROM unnest($1::text[], $2::text[]) AS p(singular, plural)
        WHERE lower(m.category) = p.singular`,
      [singulars, singulars.map((s) => PLURAL_OF[s])],
    );
    await q.query(`UPDATE memories SET category = lower(category) WHERE category <> lower(category)`);
  }

  async down(): Promise<void> {
    // A folded category cannot be told from one that was sent that way: nothing to undo.
  }
}
