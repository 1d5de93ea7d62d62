import { randomBytes } from 'node:crypto';

/** The Standard Webhooks secret format: `whsec_` and the base64 of the key bytes (24 random bytes). */
export const SIGNING_SECRET_PREFIX = 'whsec_';

export function generateSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}
