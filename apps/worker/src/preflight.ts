import type { AppConfig } from '@app/config';
import { probeRedis } from '@app/jobs';
import { probePostgres } from '@app/persistence';
import { probeVault } from '@app/secrets';

/**
 * Before the worker starts: Postgres, Redis and (when configured) Vault answer, or it stops with
 * one line naming the first that does not (DependencyUnavailableError).
 */
export async function checkWorkerDependencies(config: AppConfig): Promise<void> {
  await probePostgres(config.database.url as string);
  await probeRedis(config.redis.url as string);
  const vault = config.secrets.vault;
  if (vault.address) await probeVault(vault.address, vault.timeoutMs);
}
