import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { type AppConfig } from '@app/config';
import { TransactionRunner } from '@app/persistence';
import { randomUUID } from 'node:crypto';
import {
  ApiKeyCache,
  AuthenticateApiKeyUseCase,
  BootstrapFromEnvUseCase,
  ChangeUserStatusUseCase,
  CreateApiKeyUseCase,
  CreateUserUseCase,
  FindUserUseCase,
  GetTenantSettingsUseCase,
  ListApiKeysUseCase,
  ListAuditLogUseCase,
  ListUsersUseCase,
  MEMBER_SCOPES,
  NO_USER_ID,
  PurgeAuditLogUseCase,
  ResolveSystemActorUseCase,
  RevokeApiKeyUseCase,
  RotateApiKeyUseCase,
  UpdateTenantSettingsUseCase,
  type Principal,
  type SystemActor,
  type TenancyUseCases,
} from '@app/tenancy';
import { CliModule } from './cli.module';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** stderr is a terminal: progress is drawn as a live bar there, else written as plain lines. */
  readonly errIsTTY?: boolean;
}

/** Thrown for problems the operator must fix before the command can run (exit code 1, no stack). */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/**
 * What commands share: configuration, the CLI's Nest application context (CliModule: the servers'
 * connection pool and transaction runner, and the tenancy use cases), created on first use so that
 * `--help` and bad arguments never connect, and the output streams.
 */
export class CliContext {
  private cachedConfig: AppConfig | undefined;
  private app: Promise<INestApplicationContext> | undefined;
  private cases: TenancyUseCases | undefined;
  private readonly features: Array<Type<unknown> | DynamicModule> = [];
  /** A command ran but its check failed (`project render --check` found a change): exit code 1. */
  checkFailed = false;

  constructor(
    readonly io: CliIo,
    private readonly loadConfig: () => AppConfig,
  ) {}

  get config(): AppConfig {
    this.cachedConfig ??= this.loadConfig();
    return this.cachedConfig;
  }

  /**
   * Adds a feature module a command needs beyond CliModule's (the reindex producer, the transcript
   * import), before the first use of the container: each command builds only what it runs.
   */
  include(module: Type<unknown> | DynamicModule): this {
    if (this.app) throw new Error('CliContext.include must come before the first use of the container');
    this.features.push(module);
    return this;
  }

  /** The database connection pool (the servers' PersistenceModule), opened on first use. */
  async dataSource(): Promise<DataSource> {
    return (await this.container()).get(DataSource);
  }

  /** A use case (or other provider) of the CLI's modules. */
  async get<T>(token: Type<T> | symbol): Promise<T> {
    return (await this.container()).get<T>(token, { strict: false });
  }

  /** The transaction runner the servers use, with its answer timeout. */
  async tx(): Promise<TransactionRunner> {
    return (await this.container()).get(TransactionRunner);
  }

  async useCases(): Promise<TenancyUseCases> {
    if (this.cases) return this.cases;
    const app = await this.container();
    this.cases = {
      authenticateApiKey: app.get(AuthenticateApiKeyUseCase),
      bootstrapFromEnv: app.get(BootstrapFromEnvUseCase),
      createUser: app.get(CreateUserUseCase),
      listUsers: app.get(ListUsersUseCase),
      findUser: app.get(FindUserUseCase),
      createApiKey: app.get(CreateApiKeyUseCase),
      listApiKeys: app.get(ListApiKeysUseCase),
      revokeApiKey: app.get(RevokeApiKeyUseCase),
      resolveSystemActor: app.get(ResolveSystemActorUseCase),
      getTenantSettings: app.get(GetTenantSettingsUseCase),
      updateTenantSettings: app.get(UpdateTenantSettingsUseCase),
      rotateApiKey: app.get(RotateApiKeyUseCase),
      changeUserStatus: app.get(ChangeUserStatusUseCase),
      listAuditLog: app.get(ListAuditLogUseCase),
      purgeAuditLog: app.get(PurgeAuditLogUseCase),
      cache: app.get(ApiKeyCache, { strict: false }),
    };
    return this.cases;
  }

  /**
   * The Nest application context of the CLI's modules (CliModule), created on first use so that
   * `--help` and bad arguments never connect. Nest's own log lines stay out of the CLI's output;
   * a failure to start (an unreachable database) is thrown to the command.
   */
  private container(): Promise<INestApplicationContext> {
    if (!this.config.database.url) {
      throw new CliUsageError(
        'DATABASE_URL is not set. The CLI works on the database directly; in embedded mode, manage users ' +
          'and keys through the admin REST API with the printed admin key instead.',
      );
    }
    this.app ??= NestFactory.createApplicationContext(CliModule.forRoot(this.config, this.features), {
      logger: false,
      abortOnError: false,
    });
    return this.app;
  }

  /** The operator acting in `tenant` (default: DEFAULT_TENANT). */
  async actor(tenant: string | undefined, createTenant = false): Promise<SystemActor> {
    const cases = await this.useCases();
    return cases.resolveSystemActor.execute({
      tenantSlug: tenant ?? this.config.auth.defaultTenant,
      via: 'cli',
      createTenant,
    });
  }

  /**
   * The operator acting as `username` of the tenant, for commands over a user's own memories (export,
   * import). No key is involved: the audit rows name the user, the nil key id and a `cli-` request id.
   */
  async userPrincipal(tenant: string | undefined, username: string): Promise<Principal> {
    const actor = await this.actor(tenant);
    const user = await (await this.useCases()).findUser.execute(actor, username);
    return {
      tenantId: actor.tenantId,
      tenantSlug: actor.tenantSlug,
      userId: user.id,
      username: user.username,
      keyId: NO_USER_ID,
      scopes: MEMBER_SCOPES,
      requestId: `cli-${randomUUID()}`,
    };
  }

  async close(): Promise<void> {
    const app = await this.app?.catch(() => undefined);
    await app?.close();
  }
}
