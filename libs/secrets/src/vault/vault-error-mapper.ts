import { SecretStoreError, SecretStoreErrorCode } from '../secret-store.errors';

interface ApiFailure {
  readonly response: { readonly statusCode: number; readonly body?: { readonly errors?: readonly string[] } };
}

export function vaultStatusOf(error: unknown): number | undefined {
  const response = (error as Partial<ApiFailure> | null)?.response;
  return typeof response?.statusCode === 'number' ? response.statusCode : undefined;
}

/**
 * Maps node-vault/axios failures onto store codes. Messages never include secret content; Vault's
 * own error strings are safe (they name paths built from server ids, at most).
 */
export function mapVaultError(error: unknown, action: string): SecretStoreError {
  if (error instanceof SecretStoreError) return error;
  const status = vaultStatusOf(error);
  const vaultMessage = ((error as Partial<ApiFailure>).response?.body?.errors ?? []).join('; ');
  if (status === undefined) {
    // No HTTP answer: connection refused/reset, DNS, or our timeout.
    return SecretStoreError.unavailable(`Vault unreachable during ${action}: ${describe(error)}`, error);
  }
  if (status === 503)
    return SecretStoreError.unavailable(`Vault is sealed or in standby during ${action}`, error);
  if (status === 429 || status >= 500)
    return SecretStoreError.unavailable(`Vault answered ${status} during ${action}`, error);
  if (status === 404)
    return new SecretStoreError(SecretStoreErrorCode.NotFound, `no secret found during ${action}`);
  if (status === 400 && /check-and-set/.test(vaultMessage)) {
    return new SecretStoreError(SecretStoreErrorCode.Conflict, `a secret already exists (${action})`);
  }
  return new SecretStoreError(
    SecretStoreErrorCode.Denied,
    `Vault refused ${action} (${status}${vaultMessage ? `: ${vaultMessage}` : ''})`,
    undefined,
    { cause: error },
  );
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code} ${message}` : message;
}
