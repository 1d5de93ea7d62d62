/**
 * Identifies one memory's secret (or, with `kind: 'webhook'`, one version of a webhook endpoint's
 * signing secret: `userId` is then the endpoint id and `memoryId` the version). Built only from
 * server-issued ids, never from user text, so crafted input cannot steer where a secret is written.
 */
export interface SecretRef {
  readonly tenantId: string;
  readonly userId: string;
  readonly memoryId: string | number;
  readonly kind?: 'memory' | 'webhook';
}

const SERVER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `<prefix>/<tenant>/<user>/mem-<id>` (`<prefix>/<tenant>/webhooks/<endpoint>/v<version>` for a
 * webhook's secret); rejects anything that is not a plain server id.
 */
export function secretPath(prefix: string, ref: SecretRef): string {
  const parts = [ref.tenantId, ref.userId, String(ref.memoryId)];
  for (const part of parts) {
    if (!SERVER_ID.test(part))
      throw new TypeError('SecretRef ids must be server ids (letters, digits, - and _)');
  }
  if (ref.kind === 'webhook')
    return `${prefix}/${ref.tenantId}/webhooks/${ref.userId}/v${String(ref.memoryId)}`;
  return `${prefix}/${ref.tenantId}/${ref.userId}/mem-${String(ref.memoryId)}`;
}
