import { dependencyFailure, serviceAddress } from '@app/kernel';

/**
 * Asks Vault's health endpoint once, so a process refuses to start with one clear line
 * (`cannot reach Vault at vault:8200: connection refused`). Any HTTP answer counts: a sealed or
 * standby Vault is a runtime condition (secret-bearing writes answer 503 until it is unsealed).
 */
export async function probeVault(address: string, timeoutMs: number): Promise<void> {
  const url = new URL('/v1/sys/health', address);
  url.search = 'standbyok=true&perfstandbyok=true&sealedcode=200&uninitcode=200';
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw dependencyFailure(
      'Vault',
      serviceAddress(address, address.startsWith('https:') ? 443 : 80),
      timedOut ? new Error(`timed out after ${timeoutMs} ms`) : error,
    );
  }
}
