import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The columns whose change moves a memory's sync position (1763700000028), then `review_state`. */
const COLUMNS = [
  'content',
  'category',
  'tags',
  'expanded_keywords',
  'importance',
  'project',
  'visibility',
  'is_sensitive',
  'deleted_at',
  'secret_ref',
  'tenant_id',
  'owner_id',
  'expires_at',
];

/** Migration 1763700000008's position trigger function over the given columns. */
function changeSeqFunction(columns: readonly string[]): string {
  const row = (alias: string) => `(${columns.map((c) => `${alias}.${c}`).join(', ')})`;
  return `
    CREATE OR REPLACE FUNCTION memories_assign_change_seq() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND ${row('NEW')} IS NOT DISTINCT FROM ${row('OLD')} THEN
        IF coalesce(current_setting('app.sync_rewrite', true), '') <> 'on' THEN
          NEW.change_seq := OLD.change_seq;
        END IF;
        RETURN NEW;
      END IF;
      NEW.change_seq := pg_current_xact_id()::text::bigint;
      RETURN NEW;
    END $$`;
}

/**
 * A review moves a memory in the sync feed: accepting a proposal (migration 1763700000048) changes
 * only its `review_state`, and an offline copy must learn that it is now in force.
 */
export class ReviewStateSync1763700000049 implements MigrationInterface {
  name = 'ReviewStateSync1763700000049';

  async up(q: QueryRunner): Promise<void> {
    await q.query(changeSeqFunction([...COLUMNS, 'review_state']));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(changeSeqFunction(COLUMNS));
  }
}
