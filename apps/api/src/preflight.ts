import type { AppConfig } from '@app/config';
import { probeRedis } from '@app/jobs';
import { probePostgres } from '@app/persistence';
import { probeVault } from '@app/secrets';

/**
 * Before anything starts: every service the configuration names answers, or the process stops
 * with one line naming the first that does not (DependencyUnavailableError). Embedded mode starts
 * its own database, so only Redis and Vault are checked there when configured.
 */
export async function checkDependencies(config: AppConfig): Promise<void> {
  if (config.mode === 'server' && config.database.url) await probePostgres(config.database.url);
  if (config.redis.url) await probeRedis(config.redis.url);
  const vault = config.secrets.vault;
  if (vault.address) await probeVault(vault.address, vault.timeoutMs);
}
