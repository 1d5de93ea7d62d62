import type { ApiKeyCache } from './application/api-key-cache';
import type { AuthenticateApiKeyUseCase } from './application/authenticate-api-key.use-case';
import type { BootstrapFromEnvUseCase } from './application/bootstrap-from-env.use-case';
import type { CreateApiKeyUseCase } from './application/create-api-key.use-case';
import type { CreateUserUseCase } from './application/create-user.use-case';
import type { FindUserUseCase } from './application/find-user.use-case';
import type { GetTenantSettingsUseCase } from './application/get-tenant-settings.use-case';
import type { ListApiKeysUseCase } from './application/list-api-keys.use-case';
import type { ListUsersUseCase } from './application/list-users.use-case';
import type { ResolveSystemActorUseCase } from './application/resolve-system-actor.use-case';
import type { RevokeApiKeyUseCase } from './application/revoke-api-key.use-case';
import type { UpdateTenantSettingsUseCase } from './application/update-tenant-settings.use-case';
import type { ChangeUserStatusUseCase } from './application/change-user-status.use-case';
import type { ListAuditLogUseCase } from './application/list-audit-log.use-case';
import type { PurgeAuditLogUseCase } from './application/purge-audit-log.use-case';
import type { RotateApiKeyUseCase } from './application/rotate-api-key.use-case';

/** The tenancy use cases one by one (TenancyModule's), as the CLI's context hands them to its commands. */
export interface TenancyUseCases {
  readonly authenticateApiKey: AuthenticateApiKeyUseCase;
  readonly bootstrapFromEnv: BootstrapFromEnvUseCase;
  readonly createUser: CreateUserUseCase;
  readonly listUsers: ListUsersUseCase;
  readonly findUser: FindUserUseCase;
  readonly createApiKey: CreateApiKeyUseCase;
  readonly listApiKeys: ListApiKeysUseCase;
  readonly revokeApiKey: RevokeApiKeyUseCase;
  readonly resolveSystemActor: ResolveSystemActorUseCase;
  readonly getTenantSettings: GetTenantSettingsUseCase;
  readonly updateTenantSettings: UpdateTenantSettingsUseCase;
  readonly rotateApiKey: RotateApiKeyUseCase;
  readonly changeUserStatus: ChangeUserStatusUseCase;
  readonly listAuditLog: ListAuditLogUseCase;
  readonly purgeAuditLog: PurgeAuditLogUseCase;
  readonly cache: ApiKeyCache;
}
