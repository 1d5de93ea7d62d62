import { APP_CONFIG, type AppConfig } from '@app/config';
import { Module } from '@nestjs/common';
import { ApiKeyRepository } from './adapters/api-key.repository';
import { EnvBootstrapRepository } from './adapters/env-bootstrap.repository';
import { TenantRepository } from './adapters/tenant.repository';
import { TenantUsageRepository } from './adapters/tenant-usage.repository';
import { UserRepository } from './adapters/user.repository';
import { ApiKeyCache } from './application/api-key-cache';
import { AuditWriter } from './application/audit-writer';
import { AuthenticateApiKeyUseCase } from './application/authenticate-api-key.use-case';
import { AuthenticateAccessTokenUseCase } from './application/authenticate-access-token.use-case';
import { AccessTokenVerifier } from './adapters/access-token-verifier';
import { BootstrapFromEnvUseCase } from './application/bootstrap-from-env.use-case';
import { CreateApiKeyUseCase } from './application/create-api-key.use-case';
import { CreateUserUseCase } from './application/create-user.use-case';
import { ListApiKeysUseCase } from './application/list-api-keys.use-case';
import { FindUserUseCase } from './application/find-user.use-case';
import { GetTenantSettingsUseCase } from './application/get-tenant-settings.use-case';
import { GetTenantUsageUseCase } from './application/get-tenant-usage.use-case';
import { ListUsersUseCase } from './application/list-users.use-case';
import { ResolveSystemActorUseCase } from './application/resolve-system-actor.use-case';
import { RevokeApiKeyUseCase } from './application/revoke-api-key.use-case';
import { UpdateTenantSettingsUseCase } from './application/update-tenant-settings.use-case';
import { GrantPrivateAccessUseCase } from './application/grant-private-access.use-case';
import { AuditLogRepository } from './adapters/audit-log.repository';
import { ChangeUserStatusUseCase } from './application/change-user-status.use-case';
import { ListAuditLogUseCase } from './application/list-audit-log.use-case';
import { PurgeAuditLogUseCase } from './application/purge-audit-log.use-case';
import { KEY_ROTATION_GRACE_SECONDS, RotateApiKeyUseCase } from './application/rotate-api-key.use-case';
import { TENANT_QUOTA_DEFAULTS } from './domain/tenant-quotas';
import { ConsoleSessionRepository } from './adapters/console-session.repository';
import { OidcClient } from './adapters/oidc-client';
import { IdentityKeyResolver } from './application/identity-key-resolver';
import { BeginConsoleSignInUseCase } from './application/begin-console-sign-in.use-case';
import { CompleteConsoleSignInUseCase } from './application/complete-console-sign-in.use-case';
import { AuthenticateConsoleSessionUseCase } from './application/authenticate-console-session.use-case';
import { EndConsoleSessionUseCase } from './application/end-console-session.use-case';

const USE_CASES = [
  AuthenticateApiKeyUseCase,
  AuthenticateAccessTokenUseCase,
  BootstrapFromEnvUseCase,
  CreateUserUseCase,
  ListUsersUseCase,
  FindUserUseCase,
  CreateApiKeyUseCase,
  ListApiKeysUseCase,
  RevokeApiKeyUseCase,
  ResolveSystemActorUseCase,
  GetTenantSettingsUseCase,
  UpdateTenantSettingsUseCase,
  GrantPrivateAccessUseCase,
  RotateApiKeyUseCase,
  ChangeUserStatusUseCase,
  ListAuditLogUseCase,
  PurgeAuditLogUseCase,
  GetTenantUsageUseCase,
  BeginConsoleSignInUseCase,
  CompleteConsoleSignInUseCase,
  AuthenticateConsoleSessionUseCase,
  EndConsoleSessionUseCase,
];

/**
 * Users, keys, authentication and the tenant's quotas. Needs TransactionRunner from the (global)
 * PersistenceModule and the (global) ConfigModule (the quota defaults).
 * One ApiKeyCache per process, shared by authentication and revocation.
 */
@Module({
  providers: [
    TenantRepository,
    TenantUsageRepository,
    UserRepository,
    ApiKeyRepository,
    EnvBootstrapRepository,
    AuditWriter,
    AuditLogRepository,
    AccessTokenVerifier,
    OidcClient,
    ConsoleSessionRepository,
    IdentityKeyResolver,
    {
      provide: KEY_ROTATION_GRACE_SECONDS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => config.auth.keyRotationGraceSeconds,
    },
    { provide: ApiKeyCache, useFactory: () => new ApiKeyCache() },
    {
      provide: TENANT_QUOTA_DEFAULTS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => config.quotas,
    },
    ...USE_CASES,
  ],
  exports: [AuditWriter, ...USE_CASES],
})
export class TenancyModule {}
