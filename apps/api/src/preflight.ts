import type { AppConfig } from '@app/config';
import { DependencyUnavailableError } from '@app/kernel';
import { probeRedis } from '@app/jobs';
import { probePostgres } from '@app/persistence';
import { probeVault } from '@app/secrets';

/**
 * Before anything starts: Postgres and Vault answer, or the process stops with one line naming the
 * first that does not (DependencyUnavailableError). Embedded mode starts its own database, so only
 * Vault is checked there when configured. Redis is the exception: the API serves without it
 * (writes commit and their jobs wait in the outbox; readiness reports it degraded), so a Redis
 * that does not answer is one warning line and the start goes on — a Redis outage must not keep
 * restarted API pods out of service.
 */
export async function checkDependencies(
  config: AppConfig,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  if (config.mode === 'server' && config.database.url) await probePostgres(config.database.url);
  if (config.redis.url) {
    try {
      await probeRedis(config.redis.url);
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
      warn(`${error.message}; starting without it (jobs wait in the outbox, rate limits per process)`);
    }
  }
  const vault = config.secrets.vault;
  if (vault.address) await probeVault(vault.address, vault.timeoutMs);
}
