import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { BootstrapFromEnvUseCase, type BootstrapResult } from '@app/tenancy';

/**
 * Applies the env auth settings (default tenant, API_KEYS / API_KEY / ADMIN_API_KEY) once the
 * modules are initialised (migrations have run) and before the server listens, and keeps the
 * result so that main can print a generated first-run admin key exactly once.
 */
@Injectable()
export class BootstrapResultHolder implements OnApplicationBootstrap {
  private readonly logger = new Logger('AuthBootstrap');
  private current: BootstrapResult | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(BootstrapFromEnvUseCase) private readonly bootstrap: BootstrapFromEnvUseCase,
  ) {}

  /** Undefined until the application has bootstrapped. */
  get result(): BootstrapResult | undefined {
    return this.current;
  }

  async onApplicationBootstrap(): Promise<void> {
    const result = await this.bootstrap.execute(this.config.auth);
    this.current = result;
    for (const warning of result.warnings) this.logger.warn(warning);
    // Counts only: never log key material.
    this.logger.log(
      `tenant "${result.tenantSlug}": ${result.envKeys} env key(s) configured, ${result.revokedEnvKeys} revoked` +
        (result.generatedAdminKey
          ? `, first-run admin key generated for "${result.generatedAdminUsername}"`
          : ''),
    );
  }
}
