import { type TransactionRunner } from '@app/persistence';
import { ApiKeyRepository } from './adapters/api-key.repository';
import { EnvBootstrapRepository } from './adapters/env-bootstrap.repository';
import { TenantRepository } from './adapters/tenant.repository';
import { UserRepository } from './adapters/user.repository';
import { ApiKeyCache, type ApiKeyCacheOptions } from './application/api-key-cache';
import { AuditWriter } from './application/audit-writer';
import { AuthenticateApiKeyUseCase } from './application/authenticate-api-key.use-case';
import { BootstrapFromEnvUseCase } from './application/bootstrap-from-env.use-case';
import { CreateApiKeyUseCase } from './application/create-api-key.use-case';
import { CreateUserUseCase } from './application/create-user.use-case';
import { FindUserUseCase } from './application/find-user.use-case';
import { GetTenantSettingsUseCase } from './application/get-tenant-settings.use-case';
import { ListApiKeysUseCase } from './application/list-api-keys.use-case';
import { ListUsersUseCase } from './application/list-users.use-case';
import { ResolveSystemActorUseCase } from './application/resolve-system-actor.use-case';
import { RevokeApiKeyUseCase } from './application/revoke-api-key.use-case';
import { UpdateTenantSettingsUseCase } from './application/update-tenant-settings.use-case';
import { AuditLogRepository } from './adapters/audit-log.repository';
import { ChangeUserStatusUseCase } from './application/change-user-status.use-case';
import { ListAuditLogUseCase } from './application/list-audit-log.use-case';
import { PurgeAuditLogUseCase } from './application/purge-audit-log.use-case';
import { RotateApiKeyUseCase } from './application/rotate-api-key.use-case';
import type { TenancyUseCases } from './tenancy-use-cases';

/**
 * The same wiring as TenancyModule without a Nest container, for integration tests (the test door).
 */
export interface TenancyFactoryOptions extends ApiKeyCacheOptions {
  /** KEY_ROTATION_GRACE_SECONDS (default one day). */
  readonly keyRotationGraceSeconds?: number;
}

export function createTenancyUseCases(
  tx: TransactionRunner,
  options: TenancyFactoryOptions = {},
): TenancyUseCases {
  const tenants = new TenantRepository();
  const users = new UserRepository();
  const keys = new ApiKeyRepository();
  const audit = new AuditWriter();
  const cache = new ApiKeyCache(options);
  const auditLog = new AuditLogRepository();
  return {
    authenticateApiKey: new AuthenticateApiKeyUseCase(tx, keys, cache),
    bootstrapFromEnv: new BootstrapFromEnvUseCase(tx, tenants, new EnvBootstrapRepository(), keys, audit),
    createUser: new CreateUserUseCase(tx, users, audit),
    listUsers: new ListUsersUseCase(tx, users, audit),
    findUser: new FindUserUseCase(tx, users),
    createApiKey: new CreateApiKeyUseCase(tx, users, keys, audit),
    listApiKeys: new ListApiKeysUseCase(tx, users, keys, audit),
    revokeApiKey: new RevokeApiKeyUseCase(tx, keys, audit, cache),
    resolveSystemActor: new ResolveSystemActorUseCase(tx, tenants),
    getTenantSettings: new GetTenantSettingsUseCase(tx, tenants),
    updateTenantSettings: new UpdateTenantSettingsUseCase(tx, tenants, audit),
    rotateApiKey: new RotateApiKeyUseCase(tx, keys, audit, cache, options.keyRotationGraceSeconds ?? 86_400),
    changeUserStatus: new ChangeUserStatusUseCase(tx, users, audit, cache),
    listAuditLog: new ListAuditLogUseCase(tx, users, auditLog),
    purgeAuditLog: new PurgeAuditLogUseCase(tx, auditLog),
    cache,
  };
}
