const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]+$/i;
/** md5, sha1 (git), sha256, sha512 lengths: a bare hex string this long is far more often a digest. */
const DIGEST_LENGTHS = new Set([32, 40, 64, 128]);
const ENV_REFERENCE =
  /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|<[^>]*>)$|process\.env\.|os\.environ|getenv\(|ENV\[|secrets\./;
const PLACEHOLDER =
  /^(?:x{3,}|\*{3,}|\.{3,}|…|-+|null|none|nil|undefined|true|false|redacted|changeme|change-me|password|passw0rd|secret|token|pass|hidden|masked|todo|tbd|n\/a)$|your[-_ ]?(?:api[-_ ]?)?(?:key|token|secret|password)|^(?:my|your|some|the|example|sample|dummy|fake|test|placeholder)[-_]|example|placeholder|xxxxx|\*{4,}|<[a-z_-]+>/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Lower-case hex at a digest length (git SHA-1 = 40, SHA-256 = 64, …). */
export function isLikelyDigest(value: string): boolean {
  return HEX.test(value) && DIGEST_LENGTHS.has(value.length);
}

export function isEnvReference(value: string): boolean {
  return ENV_REFERENCE.test(value);
}

/** Placeholders people write instead of real values, and AWS's documented EXAMPLE keys. */
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value);
}

export function isBenignValue(value: string): boolean {
  return isUuid(value) || isEnvReference(value) || isPlaceholder(value);
}
