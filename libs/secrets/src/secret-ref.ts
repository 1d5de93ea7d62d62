/**
 * Identifies one memory's secret. Built only from server-issued ids, never from user text, so a
 * crafted memory cannot steer where its secret is written.
 */
export interface SecretRef {
  readonly tenantId: string;
  readonly userId: string;
  readonly memoryId: string | number;
}

const SERVER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** `<prefix>/<tenant>/<user>/mem-<id>`; rejects anything that is not a plain server id. */
export function secretPath(prefix: string, ref: SecretRef): string {
  const parts = [ref.tenantId, ref.userId, String(ref.memoryId)];
  for (const part of parts) {
    if (!SERVER_ID.test(part))
      throw new TypeError('SecretRef ids must be server ids (letters, digits, - and _)');
  }
  return `${prefix}/${ref.tenantId}/${ref.userId}/mem-${String(ref.memoryId)}`;
}
