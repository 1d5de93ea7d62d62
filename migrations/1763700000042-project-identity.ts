import type { MigrationInterface, QueryRunner } from 'typeorm';
import { projectIdentity } from '@app/kernel';

/** The tables whose `project` every write now stores as its identity. */
const TABLES = ['memories', 'sessions'] as const;

/**
 * One project identity for rows written before every write path normalised `project`: a git
 * remote in any form (`git@github.com:acme/billing.git`, `https://…`, `ssh://…`) becomes its
 * identity (`github.com/acme/billing`), as store, import, capture, recall's filter, `project_boost`
 * and the startup context compare it. Other values are only trimmed. Each distinct value is
 * rewritten once, with `app.system` set so the owner policies let the rewrite reach every tenant.
 * Nothing else of the rows changes (`updated_at` stays: the user changed nothing).
 */
export class ProjectIdentity1763700000042 implements MigrationInterface {
  name = 'ProjectIdentity1763700000042';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    for (const table of TABLES) {
      const values: Array<{ project: string }> = await q.query(
        `SELECT DISTINCT project FROM ${table} WHERE project IS NOT NULL`,
      );
      for (const { project } of values) {
        const identity = projectIdentity({ project });
        if (identity === null || identity === project) continue;
        await q.query(`UPDATE ${table} SET project = $1 WHERE project = $2`, [identity, project]);
      }
    }
  }

  async down(): Promise<void> {
    // A normalised project cannot be told from one that was sent that way: nothing to undo.
  }
}
