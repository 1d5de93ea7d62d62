import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in with the team's identity provider (OAUTH_ISSUERS): a member signed in by an issuer is
 * bound to their user by the token's issuer and subject. Each identity holds a key row of its own
 * (`source = 'oidc'`, a random hash no one is ever given): the principal, the rate limit, the audit
 * log and revocation work as for any key, and revoking it shuts that identity out.
 */
export class UserIdentities1763700000055 implements MigrationInterface {
  name = 'UserIdentities1763700000055';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys DROP CONSTRAINT api_keys_source_check;
      ALTER TABLE api_keys ADD CONSTRAINT api_keys_source_check CHECK (source IN ('managed', 'env', 'oidc'));
      CREATE TABLE user_identities (
        issuer     text NOT NULL CHECK (length(issuer) BETWEEN 1 AND 500),
        subject    text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
        tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        user_id    uuid NOT NULL,
        key_id     uuid NOT NULL,
        email      text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT user_identities_pkey PRIMARY KEY (issuer, subject, tenant_id),
        CONSTRAINT user_identities_user_fkey FOREIGN KEY (tenant_id, user_id)
          REFERENCES users(tenant_id, id) ON DELETE CASCADE,
        CONSTRAINT user_identities_key_fkey FOREIGN KEY (tenant_id, key_id)
          REFERENCES api_keys(tenant_id, id) ON DELETE CASCADE
      );
      CREATE INDEX user_identities_user ON user_identities (tenant_id, user_id);
      ALTER TABLE user_identities ENABLE ROW LEVEL SECURITY;
      ALTER TABLE user_identities FORCE ROW LEVEL SECURITY;
    `);
    await q.query(`
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON user_identities FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
      END $$`);
    await q.query(`
      CREATE POLICY tenant_rows ON user_identities FOR SELECT TO memory_app
        USING (tenant_id = (SELECT app_tenant_id()));
      GRANT SELECT ON user_identities TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE user_identities;
      DELETE FROM api_keys WHERE source = 'oidc';
      ALTER TABLE api_keys DROP CONSTRAINT api_keys_source_check;
      ALTER TABLE api_keys ADD CONSTRAINT api_keys_source_check CHECK (source IN ('managed', 'env'));
    `);
  }
}
