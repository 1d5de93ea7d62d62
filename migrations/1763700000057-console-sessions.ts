import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console's sign-in sessions (sign-in with the team's identity provider): one row per browser
 * session, found by the SHA-256 of the random token its HttpOnly cookie holds (the token itself is
 * never stored). A session acts through the signed-in identity's own key row (`source = 'oidc'`), so
 * revoking that key or disabling the user ends it at once; its idle and absolute expiry are checked
 * by the database clock. Only the schema owner's trusted path (`app.system`) reads or writes it:
 * requests authenticate before they have a tenant.
 */
export class ConsoleSessions1763700000057 implements MigrationInterface {
  name = 'ConsoleSessions1763700000057';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE console_sessions (
        tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        token_hash   bytea NOT NULL CHECK (length(token_hash) = 32),
        user_id      uuid NOT NULL,
        key_id       uuid NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at   timestamptz NOT NULL,
        CONSTRAINT console_sessions_pkey PRIMARY KEY (tenant_id, token_hash),
        CONSTRAINT console_sessions_user_fkey FOREIGN KEY (tenant_id, user_id)
          REFERENCES users(tenant_id, id) ON DELETE CASCADE,
        CONSTRAINT console_sessions_key_fkey FOREIGN KEY (tenant_id, key_id)
          REFERENCES api_keys(tenant_id, id) ON DELETE CASCADE
      );
      -- The cookie names no tenant: sessions are looked up by their token's hash alone.
      CREATE INDEX console_sessions_token ON console_sessions USING hash (token_hash);
      CREATE INDEX console_sessions_expiry ON console_sessions (tenant_id, expires_at);
      ALTER TABLE console_sessions ENABLE ROW LEVEL SECURITY;
      ALTER TABLE console_sessions FORCE ROW LEVEL SECURITY;
    `);
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON console_sessions FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE console_sessions`);
  }
}
