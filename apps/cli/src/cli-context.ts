import type { DataSource } from 'typeorm';
import { type AppConfig } from '@app/config';
import { createDataSource, initializeDataSource, TransactionRunner } from '@app/persistence';
import { randomUUID } from 'node:crypto';
import {
  createTenancyUseCases,
  MEMBER_SCOPES,
  NO_USER_ID,
  type Principal,
  type SystemActor,
  type TenancyUseCases,
} from '@app/tenancy';

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
 * What commands share: configuration, a database connection opened on first use (so `--help`
 * and bad arguments never connect), the tenancy use cases, and the output streams.
 */
export class CliContext {
  private cachedConfig: AppConfig | undefined;
  private source: DataSource | undefined;
  private cases: TenancyUseCases | undefined;

  constructor(
    readonly io: CliIo,
    private readonly loadConfig: () => AppConfig,
  ) {}

  get config(): AppConfig {
    this.cachedConfig ??= this.loadConfig();
    return this.cachedConfig;
  }

  async dataSource(): Promise<DataSource> {
    if (this.source) return this.source;
    const url = this.config.database.url;
    if (!url) {
      throw new CliUsageError(
        'DATABASE_URL is not set. The CLI works on the database directly; in embedded mode, manage users ' +
          'and keys through the admin REST API with the printed admin key instead.',
      );
    }
    const source = createDataSource({
      url,
      poolSize: 2,
      statementTimeoutMs: this.config.database.statementTimeoutMs,
      applicationName: 'memory-cli',
    });
    await initializeDataSource(source);
    this.source = source;
    return source;
  }

  async useCases(): Promise<TenancyUseCases> {
    if (this.cases) return this.cases;
    const runner = new TransactionRunner(await this.dataSource(), this.config.database.appRole);
    this.cases = createTenancyUseCases(runner, {
      ttlMs: 0,
      keyRotationGraceSeconds: this.config.auth.keyRotationGraceSeconds,
    });
    return this.cases;
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
    if (this.source?.isInitialized) await this.source.destroy();
  }
}
