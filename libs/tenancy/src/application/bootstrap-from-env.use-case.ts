import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner, type Tx } from '@app/persistence';
import { ApiKeyRepository } from '../adapters/api-key.repository';
import { EnvBootstrapRepository } from '../adapters/env-bootstrap.repository';
import { TenantRepository } from '../adapters/tenant.repository';
import { NO_USER_ID, type SystemActor } from '../domain/actor';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../domain/api-key-format';
import {
  ADMIN_USERNAME,
  planEnvKeys,
  type EnvAuthSettings,
  type PlannedEnvKey,
} from '../domain/env-key-plan';
import { ALL_SCOPES } from '../domain/principal';
import { AuditWriter } from './audit-writer';

export interface BootstrapResult {
  readonly tenantSlug: string;
  /** Env keys configured (API_KEYS entries, API_KEY, ADMIN_API_KEY). */
  readonly envKeys: number;
  /** Env keys of the default tenant revoked because they left the configuration. */
  readonly revokedEnvKeys: number;
  /** Set only on a first run with no key anywhere: print it once, it is not stored. */
  readonly generatedAdminKey?: string;
  readonly generatedAdminUsername?: string;
  /** Problems worth logging at startup (never contains key material). */
  readonly warnings: readonly string[];
}

/**
 * Makes the database match the env auth settings at startup. Idempotent across restarts and safe
 * with concurrent replicas: upserts only, all inside one system transaction holding an advisory
 * lock, so a second replica waits and then finds nothing to change.
 *
 * - The default tenant exists; every configured user exists (ADMIN_API_KEY's user is an admin).
 * - Exactly the configured keys are the default tenant's active env keys: a key that left the
 *   env (rotation, removal) is revoked, and restored if it comes back; a key an administrator
 *   revoked stays revoked even if it is still configured.
 * - Embedded first run: no key configured and no active key anywhere → an admin user gets a new
 *   managed key with every scope, returned once so the caller can print it.
 */
@Injectable()
export class BootstrapFromEnvUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TenantRepository) private readonly tenants: TenantRepository,
    @Inject(EnvBootstrapRepository) private readonly env: EnvBootstrapRepository,
    @Inject(ApiKeyRepository) private readonly keys: ApiKeyRepository,
    @Inject(AuditWriter) private readonly audit: AuditWriter,
  ) {}

  async execute(settings: EnvAuthSettings): Promise<BootstrapResult> {
    const plan = planEnvKeys(settings);
    return this.tx.asSystem(async (tx) => {
      await this.env.lock(tx);
      const tenant = await this.tenants.upsertBySlug(tx, settings.defaultTenant);
      const actor: SystemActor = {
        kind: 'system',
        via: 'bootstrap',
        tenantId: tenant.id,
        tenantSlug: tenant.slug,
      };

      const userIds = new Map<string, string>();
      for (const user of plan.users) {
        const row = await this.env.upsertUser(tx, tenant.id, user);
        userIds.set(user.username, row.id);
        if (row.inserted) await this.auditUserCreated(actor, tx, row.id, user.username, user.isAdmin);
      }

      const warnings: string[] = [];
      for (const key of plan.keys) {
        const userId = userIds.get(key.username);
        if (userId === undefined) throw new Error(`env key planned for unknown user ${key.username}`);
        const warning = await this.applyEnvKey(actor, tx, key, userId);
        if (warning) warnings.push(warning);
      }

      const revoked = await this.env.revokeEnvKeysExcept(
        tx,
        tenant.id,
        plan.keys.map((k) => k.hash),
      );
      for (const row of revoked) {
        await this.audit.record(actor, tx, {
          action: 'api_key.revoke',
          targetType: 'api_key',
          targetId: row.id,
          details: { reason: 'env_removed' },
        });
      }

      const base = {
        tenantSlug: tenant.slug,
        envKeys: plan.keys.length,
        revokedEnvKeys: revoked.length,
        warnings,
      };
      if (plan.keys.length > 0 || (await this.env.hasActiveKey(tx))) return base;
      const generatedAdminKey = await this.generateAdminKey(actor, tx);
      return { ...base, generatedAdminKey, generatedAdminUsername: ADMIN_USERNAME };
    });
  }

  private async applyEnvKey(
    actor: SystemActor,
    tx: Tx,
    key: PlannedEnvKey,
    userId: string,
  ): Promise<string | null> {
    const row = await this.env.upsertEnvKey(tx, {
      tenantId: actor.tenantId,
      userId,
      name: `env:${key.origin}`,
      hash: key.hash,
      prefix: key.prefix,
      scopes: key.scopes,
    });
    if (!row) {
      return `${key.origin}: the key for "${key.username}" is already a managed key or another tenant's key; left unchanged`;
    }
    if (row.revokedByAdmin) {
      return `${key.origin}: the key for "${key.username}" (${key.prefix}) was revoked by an administrator and stays revoked; configure a new key`;
    }
    if (row.inserted) {
      await this.audit.record(actor, tx, {
        action: 'api_key.create',
        targetType: 'api_key',
        targetId: row.id,
        details: {
          user_id: userId,
          username: key.username,
          scopes: key.scopes,
          source: 'env',
          origin: key.origin,
        },
      });
    }
    return null;
  }

  private async generateAdminKey(actor: SystemActor, tx: Tx): Promise<string> {
    const user = await this.env.upsertUser(tx, actor.tenantId, { username: ADMIN_USERNAME, isAdmin: true });
    if (user.inserted) await this.auditUserCreated(actor, tx, user.id, ADMIN_USERNAME, true);
    const plaintext = generateApiKey();
    const key = await this.keys.insert({ tenantId: actor.tenantId, userId: NO_USER_ID }, tx, {
      userId: user.id,
      name: 'generated on first start',
      hash: hashApiKey(plaintext),
      prefix: displayPrefixOf(plaintext),
      scopes: ALL_SCOPES,
      expiresAt: null,
      defaultVisibility: null,
      createdBy: null,
    });
    await this.audit.record(actor, tx, {
      action: 'api_key.create',
      targetType: 'api_key',
      targetId: key.id,
      details: { user_id: user.id, username: ADMIN_USERNAME, scopes: key.scopes, reason: 'first_run' },
    });
    return plaintext;
  }

  private async auditUserCreated(actor: SystemActor, tx: Tx, id: string, username: string, isAdmin: boolean) {
    await this.audit.record(actor, tx, {
      action: 'user.create',
      targetType: 'user',
      targetId: id,
      details: { username, is_admin: isAdmin },
    });
  }
}
