import type { KeyForRotation } from '../adapters/api-key.repository';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

/** The one key an id or prefix names: none is 404, several (a shared prefix) is 409. */
export function singleKey(found: readonly KeyForRotation[], ref: string): KeyForRotation {
  const shown = ref.slice(0, 200);
  if (found.length === 0)
    throw new TenancyError(TenancyErrorCode.KeyNotFound, `API key "${shown}" not found`);
  if (found.length > 1) {
    throw new TenancyError(
      TenancyErrorCode.KeyAmbiguous,
      `The prefix "${shown}" names ${found.length} keys (${found.map((k) => k.id).join(', ')}); use the key id`,
    );
  }
  return found[0];
}
