import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Records why a key was revoked. The env bootstrap revokes env keys that left the configuration
 * and restores them when they come back (a rollback of a rotation), but must never restore a key
 * an administrator revoked (for example after a leak).
 */
export class ApiKeyRevocationReason1763700000002 implements MigrationInterface {
  name = 'ApiKeyRevocationReason1763700000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN revoked_reason text CHECK (revoked_reason IN ('admin', 'env_removed'));
      UPDATE api_keys SET revoked_reason = 'admin' WHERE revoked_at IS NOT NULL;
      ALTER TABLE api_keys
        ADD CONSTRAINT api_keys_revoked_reason_set CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_revoked_reason_set;
      ALTER TABLE api_keys DROP COLUMN IF EXISTS revoked_reason;
    `);
  }
}
