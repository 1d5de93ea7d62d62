import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Secret memories.
 *
 * - `memories.secret_version`: the KV v2 version a Vault-backed row points at (null for rows whose
 *   `secret_ref` is a local `enc:v1:` ciphertext). A reveal reads exactly that version, so an
 *   update whose transaction failed after Vault accepted the new version still reveals the
 *   committed one.
 * - `secret_cleanup`: secrets in Vault that may have no row (yet, or any more). The write path
 *   records an intent before it writes to Vault and removes it in the transaction that commits the
 *   row; a trigger records one whenever a row stops pointing at its Vault secret (purge, retention,
 *   a user's deletion, an update that no longer holds a secret). The cleanup job deletes the
 *   secret once no row points at it.
 * - memory_app may draw ids from the memories sequence: a secret is written to Vault under its
 *   memory's id before the row is committed.
 */
export class SecretMemories1763700000005 implements MigrationInterface {
  name = 'SecretMemories1763700000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE memories ADD COLUMN secret_version integer;

      CREATE TABLE secret_cleanup (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id   uuid NOT NULL,
        owner_id    uuid NOT NULL,
        memory_id   bigint NOT NULL,
        -- The Vault path the secret was written to (server ids only).
        ref         text NOT NULL,
        not_before  timestamptz NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX secret_cleanup_due ON secret_cleanup (not_before);
      CREATE INDEX memories_secret_scan ON memories (tenant_id, id) WHERE NOT is_sensitive;
    `);

    await q.query(`ALTER TABLE secret_cleanup ENABLE ROW LEVEL SECURITY`);
    await q.query(`ALTER TABLE secret_cleanup FORCE ROW LEVEL SECURITY`);
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON secret_cleanup FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        EXECUTE format('GRANT USAGE ON SEQUENCE %s TO memory_app', pg_get_serial_sequence('memories', 'id'));
      END $$`);
    await q.query(`
      CREATE POLICY owner_rows ON secret_cleanup FOR ALL TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      GRANT SELECT, INSERT, DELETE ON secret_cleanup TO memory_app;

      -- A Vault-backed row (secret_version set) that is deleted or stops pointing at its secret
      -- leaves a cleanup entry, whichever path removed it.
      CREATE FUNCTION memories_secret_released() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
      AS $$
      BEGIN
        IF OLD.secret_version IS NOT NULL AND OLD.secret_ref IS NOT NULL
           AND (TG_OP = 'DELETE' OR NEW.secret_ref IS DISTINCT FROM OLD.secret_ref OR NOT NEW.is_sensitive) THEN
          INSERT INTO secret_cleanup (tenant_id, owner_id, memory_id, ref, not_before)
            VALUES (OLD.tenant_id, OLD.owner_id, OLD.id, OLD.secret_ref, now());
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER memories_secret_released AFTER DELETE OR UPDATE OF secret_ref, is_sensitive ON memories
        FOR EACH ROW EXECUTE FUNCTION memories_secret_released();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS memories_secret_released ON memories;
      DROP FUNCTION IF EXISTS memories_secret_released();
      DROP INDEX IF EXISTS memories_secret_scan;
      DROP TABLE IF EXISTS secret_cleanup;
      ALTER TABLE memories DROP COLUMN IF EXISTS secret_version;
    `);
  }
}
